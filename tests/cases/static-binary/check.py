"""A program linked with libfntrace.a records itself under `fntrace record`.
Statically linked, nothing can be preloaded into it, and record says
nothing of it (before, it warned that the runtime could not be preloaded
and told to link with -lfntrace, which it was).  Dynamically linked, record
does not preload the shared runtime beside it, and says so (before, the
two runtimes ran side by side, and the shared one traced the archive's own
library calls: thousands of getenv, open, mmap calls in the replay)."""
import os, subprocess


def counts_of(ctx, d):
    counts = {}
    p = ctx.run("report", "-d", d, "--format", "csv", check=True)
    for line in p.stdout.splitlines()[1:]:
        counts[line.split(",")[0]] = int(line.split(",")[1])
    return counts


def check(ctx):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.a")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    src = os.path.join(os.path.dirname(__file__), "prog.c")
    for how in (["-static"], []):
        exe = os.path.join(ctx.work, "prog-static" if how else "prog-dynamic")
        subprocess.run([cc, *how, "-" + ctx.opt, "-g", "-finstrument-functions", "-o", exe, src, lib, "-lpthread",
                        "-ldl"], check=True, capture_output=True)
        d = os.path.join(ctx.work, "rec-static.data" if how else "rec-dynamic.data")
        p = ctx.run("record", "-d", d, "--", exe, data=False)
        assert p.returncode == 0, p
        if how:
            assert "warning" not in p.stderr, p.stderr
        else:
            assert "is linked with libfntrace.a: it records itself" in p.stderr, p.stderr
        assert counts_of(ctx, d) == {"main": 1, "work": 5, "deep": 3}, (how, counts_of(ctx, d))
    # and run alone, with FNTRACE_DIR set by hand, as before
    env = dict(os.environ, FNTRACE_DIR=os.path.join(ctx.work, "static.data"))
    env.pop("LD_PRELOAD", None)
    assert subprocess.run([os.path.join(ctx.work, "prog-static")], env=env).returncode == 0
    assert counts_of(ctx, os.path.join(ctx.work, "static.data")) == {"main": 1, "work": 5, "deep": 3}
