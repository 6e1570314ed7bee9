import re

# The fork-like child is a process of its own with its 3000 calls; the
# CLONE_VM child, on its parent's TLS, is skipped and counted: child_fn and
# 1000 in_child calls, 2 events each, 2002 events.  The parent's calls are
# all there and its file is whole.  The same in the -finstrument-functions,
# -pg -mfentry and -fpatchable-function-entry builds, each of which also
# prints what it prints untraced.


def check_trace(ctx, d, out, err, what):
    assert out == "3000\n", (what, out)
    m = re.search(r"^fork-like child (\d+)$", err, re.M)
    assert m, (what, err)
    child = m.group(1)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 2$", info, re.M), (what, info)
    assert re.search(r"^lost: 2002$", info, re.M), (what, info)
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 2002 in children without TLS of "
                     r"their own \(vfork, clone\), 0 module records$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    assert re.search(r"^process %s \(parent \d+\):" % child, info, re.M), (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "main"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    assert rows == {(p, "main"): 1, (p, "in_parent"): 3000, (child, "in_child"): 3000}, (what, rows)
    rep = ctx.run("replay", "-d", d, "--tid", p, check=True)
    got = [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]
    assert got == ["main() {"] + ["  in_parent();"] * 3000 + ["} /* main */"], (what, got[:3], got[-3:])
    assert "missing" not in rep.stderr, (what, rep.stderr)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, ctx.record.stderr, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        d, r = ctx.record_build(prog, "3000\n")
        check_trace(ctx, d, r.stdout, r.stderr, prog)
