"""A longjmp after exceptions closes the calls it leaves, no more: main's
total time holds its callees' after the jump (clang's runtime counted the
frames the exceptions unwound as open, and the UNWIND closed main too), in
report's fast path and in the call layer; and a child forked after the jump
inherits main's frame at its depth, so `replay -F main` keeps its call."""
import csv
import io
import os


def totals(ctx, *opts):
    out = ctx.run("report", "-f", "csv", *opts, check=True).stdout
    return {r["function"] if "function" in r else r["Function"]: int(r["total_ns"])
            for r in csv.DictReader(io.StringIO(out))}


def check(ctx):
    for opts in ([], ["-D", "100"]):
        t = totals(ctx, *opts)
        inside = t["work"] + t["same_frame"] + t["after"]
        assert t["main"] >= inside, (opts, t)
    d = os.path.join(ctx.work, "fork.data")
    ctx.run("record", "-q", "-d", d, "--", os.path.join(ctx.work, "prog"), "fork", data=False, check=True)
    out = ctx.run("replay", "-d", d, "-F", "main", check=True).stdout
    rows = [(l.split("[", 1)[1].split("]", 1)[0], l.split("| ", 1)[1]) for l in out.splitlines()[1:]]
    child = [text for tid, text in rows if tid != rows[0][0]]
    assert child == ["  leaf();", "} /* main (entered before this process began) */"], out
