"""Each child started with an environment of its own is traced (child_work
once in each of 4 processes, each the exec of the pid that ran it), keeps
the variables the program gave it (FNTRACE_DIR=mine stays the program's
own), and as root the setuid child and the child forked after setuid()
are named in info as untraced."""
import os
import re


def check(ctx):
    root = os.geteuid() == 0
    out = ctx.record.stdout.splitlines()
    want = ["child spawn A=1 B=- euid=0 FNTRACE_DIR=kept",
            "child spawnp A=2 B=2 euid=0 FNTRACE_DIR=kept",
            "child execve A=- B=3 euid=0 FNTRACE_DIR=kept",
            "child execle A=4 B=- euid=0 FNTRACE_DIR=set-by-program"]
    if not root:
        want = [w.replace("euid=0", "euid=%d" % os.geteuid()) for w in want]
    else:
        want.append("child setuid A=- B=- euid=65534 FNTRACE_DIR=kept")
    assert out == want, out
    where = {}
    for r in ctx.csv("--threads"):
        where.setdefault(r["function"], []).append((r["tid"], int(r["calls"])))
    # the execle child wrote into ./mine: its own FNTRACE_DIR, honoured
    assert len(where.get("child_work", [])) == 3, where
    assert all(c == 1 for _, c in where["child_work"]), where
    assert len(set(t for t, _ in where["child_work"])) == 3, where
    mine = os.path.join(ctx.work, "mine")
    assert os.path.isdir(mine) and [f for f in os.listdir(mine) if f.endswith(".fnt")], \
        "execle child not traced into its own FNTRACE_DIR"
    p = ctx.run("replay", "-d", mine, check=True)
    assert re.search(r"\| +child_work\(\);$", p.stdout, re.M), p.stdout
    assert "grandchild_work" not in where, where
    info = ctx.run("info", check=True).stdout
    if root:
        assert "\nuntraced: 2 processes started by the program (see below)\n" in info, info
        assert re.search(r"^  untraced child \d+: a setuid/setgid program \(secure execution ignores LD_PRELOAD\) "
                         r"'.*/suidchild'$", info, re.M), info
        assert re.search(r"^  untraced child \d+: forked after the user changed: cannot create its trace file in "
                         r"'%s'$" % re.escape(ctx.data), info, re.M), info
    else:
        assert "untraced" not in info, info
