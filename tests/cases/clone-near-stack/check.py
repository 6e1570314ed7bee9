import os, re, subprocess

# The CLONE_VM child runs on its parent thread's TLS with its stack 16 KiB
# below the parent's: it is skipped and counted, child_fn and 1000
# in_child calls, 2 events each, 2002 events.  The parent's 2000 calls are
# all there and nest as made.  The same in the -finstrument-functions,
# -pg -mfentry and -fpatchable-function-entry builds, each of which also
# prints what it prints untraced.


def check_trace(ctx, d, out, what):
    assert out == "2000\n", (what, out)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 1$", info, re.M), (what, info)
    assert re.search(r"^lost: 2002$", info, re.M), (what, info)
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 2002 in children without TLS of "
                     r"their own \(vfork, clone\), 0 module records$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "main"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    assert rows == {(p, "main"): 1, (p, "in_parent"): 2000}, (what, rows)
    rep = ctx.run("replay", "-d", d, check=True)
    got = [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]
    assert got == ["main() {"] + ["  in_parent();"] * 2000 + ["} /* main */"], (what, got[:3], got[-3:])
    assert "missing" not in rep.stderr and "unwound" not in rep.stdout, (what, rep.stderr)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0 and plain.stdout == "2000\n", (prog, plain)
        d = os.path.join(ctx.work, "rec-" + prog)
        r = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe], capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        assert r.returncode == 0, (prog, r.returncode, r.stderr)
        check_trace(ctx, d, r.stdout, prog)
