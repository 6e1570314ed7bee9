import os, re, subprocess

# Neither hand-made vfork child is recorded as its parent: no wrapper saw
# the clone, and the first event of each is found by the time it comes
# after the parent's last (a clone takes microseconds), then told apart by
# its thread id.  Each child's calls are skipped and counted as lost "in
# children without TLS of their own": child_work and its 1000 in_child
# calls (child_work never returns: under -finstrument-functions its exit
# never comes, 2001 events; -pg and patchable entries count 2 for every
# call they drop, 2002), and child_exec's in_child (2 events; child_exec
# itself, entered, 1 or 2).  The image the second child execs is a process
# of its own.  The parent's 3000 calls are all there, in one main() with
# nothing unwound.  The same in the -finstrument-functions, -pg -mfentry
# and -fpatchable-function-entry builds, each of which also prints what it
# prints untraced.


def check_trace(ctx, d, out, err, what, lost):
    assert out == "3000\n", (what, out)
    m = re.search(r"^pids (\d+) (\d+)$", err, re.M)
    assert m, (what, err)
    exec_pid = m.group(2)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 2$", info, re.M), (what, info)
    assert re.search(r"^lost: %d$" % lost, info, re.M), (what, info)
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, %d in children without TLS of "
                     r"their own \(vfork, clone\), 0 module records$" % lost, info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    assert re.search(r"^process %s \(parent \d+\)" % exec_pid, info, re.M), (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "in_parent"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    assert rows == {(p, "main"): 1, (p, "in_parent"): 3000, (exec_pid, "main"): 1, (exec_pid, "after_exec"): 1}, \
        (what, rows)
    rep = ctx.run("replay", "-d", d, "--tid", p, check=True)
    got = [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]
    assert got == ["main() {"] + ["  in_parent();"] * 3000 + ["} /* main */"], (what, got[:3], got[-3:])
    assert "missing" not in rep.stderr, (what, rep.stderr)


def check(ctx):
    # -finstrument-functions: child_work's exit never comes (2001), child_exec's neither (1 + 2)
    check_trace(ctx, ctx.data, ctx.record.stdout, ctx.record.stderr, "prog", 2001 + 3)
    for prog in ("prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0 and plain.stdout == "3000\n", (prog, plain)
        d = os.path.join(ctx.work, "rec-" + prog)
        r = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe], capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        assert r.returncode == 0, (prog, r.returncode, r.stderr)
        check_trace(ctx, d, r.stdout, r.stderr, prog, 2002 + 4)
