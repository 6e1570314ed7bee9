"""Each child started with an environment of its own is traced (child_work
once in each of 4 processes, each the exec of the pid that ran it), keeps
the variables the program gave it (FNTRACE_DIR=mine stays the program's
own); so is each child started with the program's environ after the
program took LD_PRELOAD and FNTRACE_DIR out of it (execv, execvp, execl,
execlp, system, popen: 6 more processes), and the program's own
environment is as it left it after system() and popen().  A statically
linked child (spawned, exec'd after fork, exec'd after vfork) and a 32-bit
one are named in info as untraced, with the reason; a static one linked
with the runtime and one run through the loader by hand are traced and not
named.  As root the setuid child and the child forked after setuid() are
named too.  Before: the 6 children were untraced and info said nothing."""
import os
import re


def check(ctx):
    root = os.geteuid() == 0
    out = ctx.record.stdout.splitlines()
    want = ["child spawn A=1 B=- euid=0 FNTRACE_DIR=kept",
            "child spawnp A=2 B=2 euid=0 FNTRACE_DIR=kept",
            "child execve A=- B=3 euid=0 FNTRACE_DIR=kept",
            "child execle A=4 B=- euid=0 FNTRACE_DIR=set-by-program",
            "child clearenv-execv A=5 B=- euid=0 FNTRACE_DIR=kept",
            "child unsetenv-execvp A=- B=6 euid=0 FNTRACE_DIR=kept",
            "child putenv-execl A=- B=- euid=0 FNTRACE_DIR=kept",
            "child environ-execlp A=7 B=- euid=0 FNTRACE_DIR=kept",
            "child system A=- B=- euid=0 FNTRACE_DIR=kept",
            "system: the program's environment unchanged",
            "child popen A=- B=8 euid=0 FNTRACE_DIR=kept",
            "popen: the program's environment unchanged",
            "child static-spawn A=- B=- euid=0 FNTRACE_DIR=kept",
            "child static-fork-execv A=- B=- euid=0 FNTRACE_DIR=kept",
            "child static-vfork-execv A=- B=- euid=0 FNTRACE_DIR=kept",
            "child static-traced A=- B=- euid=0 FNTRACE_DIR=kept",
            "child loader A=- B=- euid=0 FNTRACE_DIR=kept",
            "child32 exited 7"]
    if not root:
        want = [w.replace("euid=0", "euid=%d" % os.geteuid()) for w in want]
    else:
        want.append("child setuid A=- B=- euid=65534 FNTRACE_DIR=kept")
    assert out == want, out
    where = {}
    for r in ctx.csv("--threads"):
        where.setdefault(r["function"], []).append((r["tid"], int(r["calls"])))
    # the execle child wrote into ./mine: its own FNTRACE_DIR, honoured;
    # the static child without the runtime and the 32-bit one have no hooks
    assert len(where.get("child_work", [])) == 11, where
    assert all(c == 1 for _, c in where["child_work"]), where
    assert len(set(t for t, _ in where["child_work"])) == 11, where
    mine = os.path.join(ctx.work, "mine")
    assert os.path.isdir(mine) and [f for f in os.listdir(mine) if f.endswith(".fnt")], \
        "execle child not traced into its own FNTRACE_DIR"
    p = ctx.run("replay", "-d", mine, check=True)
    assert re.search(r"\| +child_work\(\);$", p.stdout, re.M), p.stdout
    assert "grandchild_work" not in where, where
    info = ctx.run("info", check=True).stdout
    assert re.search(r"^lost: 0$", info, re.M), info
    static = "a statically linked program (no loader to preload the runtime) '%s'" % os.path.join(ctx.work, "static")
    lines = [l for l in info.splitlines() if "untraced" in l]
    want = ["untraced: %d processes started by the program (see below)" % (6 if root else 4),
            "  untraced child %s: " + static,
            "  untraced child %s: a program for another architecture (the runtime cannot be loaded into it) '"
            + os.path.join(ctx.work, "child32") + "'"]
    if root:
        want += ["  untraced child %s: a setuid/setgid program (secure execution ignores LD_PRELOAD) '"
                 + os.path.join(ctx.work, "suidchild") + "'"]
    # the forked and the vfork child that exec'd it, each in its own file
    want += ["  untraced exec: " + static] * 2
    if root:
        want += ["  untraced child %%s: forked after the user changed: cannot create its trace file in '%s'" % ctx.data]
    got = [re.sub(r"^(  untraced child )\d+:", r"\1%s:", l) for l in lines]
    assert got == want, (got, want)
    procs = re.split(r"^process ", info, flags=re.M)
    assert len([p for p in procs if "untraced exec: " in p]) == 2, info
