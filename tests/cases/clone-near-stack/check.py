import re

# The CLONE_VM children run on their parent thread's TLS with their stacks
# 16 KiB and 4 KiB below the parent's: each is skipped and counted, child_fn
# and 1000 in_child calls, 2 events each, 2002 events per child.  The
# first is found by its stack pointer (out of the window, but within
# 32 KiB), the second, inside the window, by the time its first event comes
# after the parent's last (runtime.h, FNT_GAP_TICKS).  The parent's 3000
# calls are all there and nest as made.  The same in the -finstrument-functions,
# -pg -mfentry and -fpatchable-function-entry builds, each of which also
# prints what it prints untraced.


def check_trace(ctx, d, out, what):
    assert out == "3000\n", (what, out)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 1$", info, re.M), (what, info)
    assert re.search(r"^lost: 4004$", info, re.M), (what, info)
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 4004 in children without TLS of "
                     r"their own \(vfork, clone\), 0 module records$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "main"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    assert rows == {(p, "main"): 1, (p, "in_parent"): 3000}, (what, rows)
    rep = ctx.run("replay", "-d", d, check=True)
    got = [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]
    assert got == ["main() {"] + ["  in_parent();"] * 3000 + ["} /* main */"], (what, got[:3], got[-3:])
    assert "missing" not in rep.stderr and "unwound" not in rep.stdout, (what, rep.stderr)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        d, r = ctx.record_build(prog, "3000\n")
        check_trace(ctx, d, r.stdout, prog)
