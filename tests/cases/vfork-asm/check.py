import os, re, subprocess

# Each hand-made vfork child is a process of its own, under its own pid,
# with every call it made: no wrapper saw the clone, so the first event of
# each is found by the time it comes after its parent thread's last (a
# clone takes microseconds), told by its thread id, and given a state and
# file of its own once the kernel confirms that the parent waits in a
# CLONE_VFORK clone; the parent gets its own state back at its first event
# (the third parent's first event is the return of spawn_and_return).
# Nothing is lost.  The parent's 3000 calls are all there, in one main()
# with nothing unwound.  The same in the -finstrument-functions, -pg
# -mfentry and -fpatchable-function-entry builds, each of which also
# prints what it prints untraced.


def lines(ctx, d, *args):
    rep = ctx.run("replay", "-d", d, *args, check=True)
    assert "missing" not in rep.stderr, rep.stderr
    return [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]


def check_trace(ctx, d, out, err, what):
    assert out == "3000\n", (what, out)
    m = re.search(r"^pids (\d+) (\d+) (\d+)$", err, re.M)
    assert m, (what, err)
    a, b, c = m.group(1), m.group(2), m.group(3)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 5$", info, re.M), (what, info)
    assert re.search(r"^lost: 0$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    for pid in (a, b, c):
        assert re.search(r"^process %s \(parent \d+\):" % pid, info, re.M), (what, pid, info)
    assert re.search(r"^process %s \(parent \d+\) after exec:" % b, info, re.M), (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "in_parent"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    assert rows == {(p, "main"): 1, (p, "in_parent"): 3000, (p, "spawn_and_return"): 1,
                    (a, "child_work"): 1, (a, "in_child"): 1000,
                    (b, "child_exec"): 1, (b, "in_child"): 1, (b, "main"): 1, (b, "after_exec"): 1,
                    (c, "child_work"): 1, (c, "in_child"): 1000}, (what, rows)
    got = lines(ctx, d, "--tid", p)
    assert got == (["main() {"] + ["  in_parent();"] * 2000 + ["  spawn_and_return();"] +
                   ["  in_parent();"] * 1000 + ["} /* main */"]), (what, got[:3], got[-3:])
    assert "unwound" not in "\n".join(lines(ctx, d)), what
    # each child goes on at its parent's depth and leaves by _exit or exec
    got = lines(ctx, d, "--tid", a)
    assert got == ["  child_work() {"] + ["    in_child();"] * 1000 + \
        ["  } /* child_work (no return: trace ended) */"], (what, got[:3], got[-3:])
    got = lines(ctx, d, "--tid", c)
    assert got == ["    child_work() {"] + ["      in_child();"] * 1000 + \
        ["    } /* child_work (no return: trace ended) */"], (what, got[:3], got[-3:])
    got = lines(ctx, d, "--tid", b)
    assert got == ["  child_exec() {", "    in_child();", "  } /* child_exec (no return: exec) */",
                   "main() {", "  after_exec();", "} /* main */"], (what, got)


def check_filtered(ctx, exe, what):
    # record-time filters: the children's calls that the filters keep are
    # in the children's files, and the parent's filter state is as if they
    # had never run (its later calls are left out or kept as they should)
    for flt, want in (("child_work", {"a": {"child_work": 1, "in_child": 1000},
                                      "c": {"child_work": 1, "in_child": 1000}}),
                      ("spawn_and_return", {"p": {"spawn_and_return": 1},
                                            "c": {"child_work": 1, "in_child": 1000}})):
        d = os.path.join(ctx.work, "rec-F-%s-%s" % (flt, os.path.basename(exe)))
        r = subprocess.run([ctx.fntrace, "record", "-F", flt, "-d", d, "--", exe], capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        assert r.returncode == 0 and r.stdout == "3000\n", (what, flt, r.returncode, r.stderr)
        m = re.search(r"^pids (\d+) (\d+) (\d+)$", r.stderr, re.M)
        info = ctx.run("info", "-d", d, check=True).stdout
        assert re.search(r"^lost: 0$", info, re.M), (what, flt, info)
        rows = {}
        for row in ctx.csv("-d", d, "--threads"):
            rows.setdefault(row["tid"], {})[row["function"]] = int(row["calls"])
        names = {"a": m.group(1), "c": m.group(3)}
        got = {k: rows.get(names[k], {}) for k in ("a", "c")}
        got.update({"p": v for t, v in rows.items() if t not in names.values()})
        assert got == dict({"a": {}, "c": {}}, **want), (what, flt, rows)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, ctx.record.stderr, "prog")
    check_filtered(ctx, os.path.join(ctx.work, "prog"), "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        d, r = ctx.record_build(prog, "3000\n")
        check_trace(ctx, d, r.stdout, r.stderr, prog)
        check_filtered(ctx, os.path.join(ctx.work, prog), prog)
