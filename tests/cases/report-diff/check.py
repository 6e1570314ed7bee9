"""report --diff BASE: one row per function of either trace, matched by
name and module (a rebuilt binary matches), with calls, total, self and avg
of both; csv values equal each trace's own report to the nanosecond; rows
sorted by the largest change of total time (or of -s KEY); text shows the
change and its percent, "new" for a function the base lacks."""
import csv
import io
import json
import os
import subprocess


def own(ctx, d):
    rows = csv.DictReader(io.StringIO(ctx.run("report", "-d", d, "-f", "csv", check=True).stdout))
    return {r["function"]: r for r in rows}


def check(ctx):
    base = ctx.data                        # prog 4: a x4, b x2, main
    # the same program rebuilt with one more function, run with 10:
    # a x10, b x5, c x1, d x1
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")
    os.makedirs(os.path.join(ctx.work, "rebuilt"), exist_ok=True)
    exe = os.path.join(ctx.work, "rebuilt", "prog")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-DREBUILT", "-o", exe, src], check=True)
    new = os.path.join(ctx.work, "new.data")
    ctx.run("record", "-q", "-d", new, "--", exe, "10", data=False, check=True)

    p = ctx.run("report", "-d", new, "--diff", base, "-f", "csv", check=True)
    lines = p.stdout.splitlines()
    assert lines[0] == ("function,calls,base_calls,total_ns,base_total_ns,self_ns,base_self_ns,avg_ns,"
                        "base_avg_ns,module"), lines[0]
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    calls = {r["function"]: (int(r["calls"]), int(r["base_calls"])) for r in rows}
    assert calls == {"main": (1, 1), "a": (10, 4), "b": (5, 2), "c": (1, 0), "d": (1, 0)}, calls
    assert all(r["module"] == "prog" for r in rows), rows
    mine, theirs = own(ctx, new), own(ctx, base)
    for r in rows:
        f = r["function"]
        for col in ("total_ns", "self_ns", "avg_ns"):
            assert int(r[col]) == int(mine[f][col]), (f, col, r, mine[f])
            want = int(theirs[f][col]) if f in theirs else 0
            assert int(r["base_" + col]) == want, (f, col, r)
    changes = [abs(int(r["total_ns"]) - int(r["base_total_ns"])) for r in rows]
    assert changes == sorted(changes, reverse=True), changes

    # -s calls: the largest change of calls first (a: +6, b: +3), then by name
    p = ctx.run("report", "-d", new, "--diff", base, "-f", "json", "-s", "calls", check=True)
    doc = json.loads(p.stdout)
    assert [f["function"] for f in doc["functions"]] == ["a", "b", "c", "d", "main"], doc
    assert doc["base"] == base and doc["trace"] == new

    # text: calls and their change, "new" where the base had none
    p = ctx.run("report", "-d", new, "--diff", base, check=True)
    text = {l.split()[-1]: l.split() for l in p.stdout.splitlines()[3:]}
    assert text["a"][-3:] == ["10", "+6", "a"], text["a"]
    assert text["d"][-3:] == ["1", "+1", "d"] and text["d"].count("new") == 2, text["d"]
    assert text["main"][-3:] == ["1", "0", "main"], text["main"]

    # the filters apply to both traces (and the base's view leaves the option lists to the caller:
    # with -F the sanitizer build found them freed twice)
    p = ctx.run("report", "-d", new, "--diff", base, "-f", "csv", "-F", "b", "-N", "c", "--debug-dir", ctx.work,
                check=True)
    calls = {r["function"]: (int(r["calls"]), int(r["base_calls"])) for r in csv.DictReader(io.StringIO(p.stdout))}
    assert calls == {"b": (5, 2)}, calls

    # usage errors
    p = ctx.run("report", "-d", new, "--diff", base, "--threads")
    assert p.returncode == 2 and "'--diff' and '--threads'" in p.stderr, p.stderr
    p = ctx.run("report", "-d", new, "--diff", os.path.join(ctx.work, "nothing"))
    assert p.returncode == 1 and "nothing" in p.stderr.splitlines()[0], p.stderr
