"""Programs under seccomp filters (prog.c): the runtime makes no system call
a filter forbids, so each ends as it would untraced (exit status 3, the
same output) with every call of its own recorded.
- deny (the recorded run): a filter that kills the process for four calls
  a plain program never makes.  The runtime asked for a pidfd of record at
  every process exit, and the filter killed the program there: SIGSYS,
  status 159.  The forked child is recorded too.
- allow: a filter that allows only memory, threads, sleeps, read, write
  and exits, and kills for anything else; trap: the same, raising SIGSYS,
  whose handler exits with 99.  The runtime ran the filter on its own
  calls when the program installed it, and does without the ones it
  forbids: the thread id after the 20 ms sleep (gettid: SIGSYS before),
  the thread's name, the trace file's checks and growth, record's state.
  The forked child, which cannot make its trace file under the filter, is
  listed as untraced, not killed.  The allow filter with a -pg -mfentry
  build too.
- lowfd: fstat allowed on descriptors 0-2 only: the runtime, whose
  descriptor is high, must not call it (SIGSYS before).
- probe: a NULL filter, which the kernel fails with EFAULT, forbids
  nothing: the forked child is recorded (it was not, and the process's
  exit was not marked, when the runtime took it for a filter that
  forbids everything)."""
import os
import subprocess

OUT = "10001000000 20000000000 0\n"


def counts(ctx, d):
    return {r["function"]: int(r["calls"]) for r in ctx.csv("-d", d)}


def check(ctx):
    assert ctx.record.stdout == OUT, ctx.record.stdout
    assert "signal" not in ctx.record.stderr, ctx.record.stderr
    info = ctx.run("info", check=True).stdout
    assert "status: exited with 3" in info and "untraced" not in info, info

    prog = os.path.join(ctx.builddir, "prog")
    for prog, mode in ((prog, "allow"), (prog, "trap"), (prog, "lowfd"), (prog, "probe"),
                       (os.path.join(ctx.work, "prog-fentry"), "allow")):
        # (untraced, a -pg build writes gmon.out at exit, which the filter forbids)
        if not prog.endswith("-fentry"):
            plain = subprocess.run([prog, mode], capture_output=True, text=True, timeout=60)
            assert plain.returncode == 3 and plain.stdout == OUT, (mode, "untraced", plain)
        d = os.path.join(ctx.work, os.path.basename(prog) + "-" + mode + ".data")
        p = ctx.run("record", "-q", "-d", d, "--", prog, mode, data=False)
        assert p.returncode == 3 and p.stdout == OUT, (mode, p.returncode, p.stdout, p.stderr)
        got = counts(ctx, d)
        # (the child recorded only where no filter is installed)
        child = 1000 if mode == "probe" else 0
        assert got["work"] == 301000 + child and got["loop"] == 4 + (child > 0) and got["thread_main"] == 2, \
            (mode, got)
        # (its chunks reach the file's end: a file cut inside its last chunk warns)
        rep = ctx.run("report", "-d", d, check=True)
        assert "warning" not in rep.stderr, (mode, rep.stderr)
        info = ctx.run("info", "-d", d, check=True).stdout
        assert "status: exited with 3" in info and "\nlost: 0\n" in info, (mode, info)
        assert ("forked under a seccomp filter that forbids creating its trace file in" in info) == (not child), \
            (mode, info)
        assert "status: exited with 3\n" in info, (mode, info)
