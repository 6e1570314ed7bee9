import os, re, subprocess

# Each vfork child (and the clone(CLONE_VM|CLONE_VFORK) child) is a process
# of its own, under its own pid, with every call it made; the parent's and its worker thread's calls are all there
# (exact counts, per thread), and nothing is lost or damaged.  The same in
# the -finstrument-functions build (the harness's recording), the -pg
# -mfentry build and the -fpatchable-function-entry build.


def check_trace(ctx, d, out, err, what):
    assert out == "15 0 0 0 300000\n", (what, out)
    m = re.search(r"^pids (\d+) (\d+) (\d+)$", err, re.M)
    assert m, (what, err)
    a, b, c = m.group(1), m.group(2), m.group(3)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 5$", info, re.M), (what, info)
    assert re.search(r"^lost: 0$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    assert re.search(r"^process %s \(parent \d+\) after exec:" % b, info, re.M), (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "in_parent"]
    worker = [t for (t, f) in rows if f == "worker"]
    assert len(parent) == 1 and len(worker) == 1, (what, rows)
    p, w = parent[0], worker[0]
    want = {(p, "main"): 1, (p, "in_parent"): 4, (w, "worker"): 1, (w, "worker_call"): 300000,
            (a, "vfork_child"): 1, (a, "in_vfork_child"): 200000,
            (b, "in_vfork_child"): 1, (b, "main"): 1, (b, "after_exec"): 1,
            (c, "spawn_fn"): 1, (c, "in_vfork_child"): 1000}
    assert rows == want, (what, rows)
    rep = ctx.run("replay", "-d", d, check=True)
    assert "unwound" not in rep.stdout and "missing" not in rep.stderr, (what, rep.stderr)
    lines = lambda *args: [l.split("| ", 1)[1] for l in ctx.run("replay", "-d", d, *args, check=True)
                           .stdout.splitlines() if "| " in l and not l.startswith("#")]
    got = lines("--tid", p)
    assert got == ["main() {"] + ["  in_parent();"] * 4 + ["} /* main */"], (what, got)
    # the child goes on at its parent's depth, and left by _exit inside vfork_child
    got = lines("--tid", a, "-D", "3")
    assert got[0] == "  vfork_child() {" and got[-1] == "  } /* vfork_child (no return: trace ended) */", \
        (what, got[:3], got[-3:])
    assert len(got) == 200002 and set(got[1:-1]) == {"    in_vfork_child();"}, (what, len(got), set(got[1:-1]))
    got = lines("--tid", b)
    assert got == ["  in_vfork_child();", "main() {", "  after_exec();", "} /* main */"], (what, got)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, ctx.record.stderr, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        d = os.path.join(ctx.work, "rec-" + prog)
        r = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe], capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        assert r.returncode == 0, (prog, r.returncode, r.stderr)
        check_trace(ctx, d, r.stdout, r.stderr, prog)
