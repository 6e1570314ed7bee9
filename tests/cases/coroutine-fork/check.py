"""A coroutine suspended inside traced frames on its own stack when the
process forks: in the child, whose thread state the runtime sets up again
at its first event, the coroutine must resume and return through those
frames.  Under -pg and patchable entries their real return addresses live
in the parked stack's shadow stack; the child lost them (the runtime's
thread registration dropped the coroutine table) and aborted with "shadow
stack out of sync"."""
import os
import subprocess

WANT = {"main": 1, "generator": 1, "produce": 7, "yield": 7, "next": 9, "consume": 7}


def sorted_lines(s):
    return sorted(s.splitlines())


def check(ctx):
    builds = ["prog"] + ["prog-fentry", "prog-patchable"]
    for prog in builds:
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0, (prog, plain)
        if prog == "prog":
            d, p = ctx.data, ctx.record
        else:
            d = os.path.join(ctx.work, "rec-" + prog)
            p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", exe],
                               capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert p.returncode == 0, (prog, p.returncode, p.stderr)
        assert "out of sync" not in p.stderr, (prog, p.stderr)
        # parent and child print at once: compare the lines, not their order
        assert sorted_lines(p.stdout) == sorted_lines(plain.stdout), (prog, p.stdout)
        assert "child done" in p.stdout and "parent done" in p.stdout, (prog, p.stdout)
        got = {k: v for k, v in ctx.counts("-d", d).items() if k in WANT}
        assert got == WANT, (prog, got)
        info = ctx.run("info", "-d", d, check=True).stdout
        assert "\nprocesses: 2\n" in info and "\nlost: 0\n" in info, (prog, info)
        # in each process the generator's frames close where it returns
        rep = ctx.run("replay", "-d", d, check=True).stdout
        assert "unwound" not in rep, (prog, rep)
