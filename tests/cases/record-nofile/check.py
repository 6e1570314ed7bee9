"""Under a low open-files limit (ulimit -n): the runtime keeps its
descriptors at 800 or more, or at the top of a lower limit, never among
the low numbers a program manages itself (doc/safety.md).
- ulimit -n 100: the top of the range; every call recorded.
- ulimit -n 64: no number high enough; the program runs untraced with its
  own exit status, the runtime says why in one line (it said "Bad file
  descriptor", close(-1)'s error), and record says that the limit is the
  reason (it asked whether the program was built with
  -finstrument-functions)."""
import os
import resource
import subprocess


def record(ctx, limit, d):
    def lower():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    return subprocess.run([ctx.fntrace, "record", "-d", d, "--", os.path.join(ctx.builddir, "prog")],
                          capture_output=True, text=True, cwd=ctx.work, timeout=120, preexec_fn=lower)


def check(ctx):
    assert ctx.counts() == {"main": 1, "leaf": 1000}, ctx.counts()
    d = os.path.join(ctx.work, "n100.data")
    p = record(ctx, 100, d)
    assert p.returncode == 5 and p.stdout == "500500\n", p
    assert ctx.counts("-d", d) == {"main": 1, "leaf": 1000}, (p.stderr, ctx.counts("-d", d))

    d = os.path.join(ctx.work, "n64.data")
    p = record(ctx, 64, d)
    assert p.returncode == 5 and p.stdout == "500500\n", p
    lines = p.stderr.splitlines()
    assert lines == [
        "fntrace: cannot create a trace file in '%s': Too many open files; not recording" % d,
        "fntrace: no function events were recorded: the open-files limit (ulimit -n 64) leaves the runtime no "
        "descriptor out of the program's way; it needs more than 64 (see above)",
    ], p.stderr
