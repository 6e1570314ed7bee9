"""A longjmp after exceptions closes the calls it leaves, no more: main's
total time holds its callees' after the jump (clang's runtime counted the
frames the exceptions unwound as open, and the UNWIND closed main too), in
report's fast path and in the call layer; and a child forked after the jump
inherits main's frame at its depth, so `replay -F main` keeps its call.
Record-time filters keep what the same filters keep at read time: the
runtime closes the written calls an exception leaves at its landing pad
(`record -F deep`: deep is thrown through and caught in catcher, which was
not written, and deep stayed open, the later calls inside it), and its count
of written calls, which the longjmp counts from, goes back with them."""
import csv
import io
import os


def totals(ctx, *opts):
    out = ctx.run("report", "-f", "csv", *opts, check=True).stdout
    return {r["function"] if "function" in r else r["Function"]: int(r["total_ns"])
            for r in csv.DictReader(io.StringIO(out))}


def calls(text):
    return [l.split("| ", 1)[1] for l in text.splitlines()[1:]]


def check(ctx):
    full = ctx.data
    for opts in (["-F", "deep"], ["-F", "via"], ["-D", "3"], ["-N", "thrower"], ["-H", "catcher"], ["-C", "leaf"],
                 ["-F", "same_frame"]):
        d = os.path.join(ctx.work, "rec.data")
        ctx.run("record", "-q", "-d", d, *opts, "--", os.path.join(ctx.work, "prog"), data=False, check=True)
        rec = calls(ctx.run("replay", "-d", d, check=True).stdout)
        read = calls(ctx.run("replay", "-d", full, *opts, check=True).stdout)
        assert rec == read and len(rec) >= 4, (opts, rec, read)
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
