"""A synthetic trace of 10,000,000 entries without exits (issue 15): every
view runs in 64 MB of address space (ulimit -v), however many calls are
open, and writes at most a fixed number of bytes per event (the output is
at most linear in the events: one quadratic in the depth would be 10^14).
report keeps its open calls in 16 bytes each, the deep ones in a temporary
file (it needed 24 bytes a call, 240 MB here); the other views keep theirs
on the call layer's bounded stack (tool/framestack.c).

One build only (gcc-O2: the program is a loop that calls the entry hook),
about 20 s.  Under the sanitizers, which reserve terabytes of address
space, the memory limit is not checked, and only report and replay run
(about 15 s; each other view takes 8-12 s there)."""
import os
import resource
import subprocess

N = 10000000
EVENTS = N      # entries; the trace has no exit


def measure(ctx, args, limit_mb):
    """(bytes written to stdout, stderr) of `fntrace ARGS` under ulimit -v"""
    limit = limit_mb << 20 if limit_mb else None
    pre = (lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))) if limit else None
    p = subprocess.Popen([ctx.fntrace] + args + ["-d", ctx.data], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=ctx.work, preexec_fn=pre)
    size = 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        size += len(b)
    err = p.stderr.read().decode()
    assert p.wait(timeout=300) == 0, (args, "in %s MB" % limit_mb, err)
    return size


def check(ctx):
    assert ctx.record.stdout == "%d\n" % N, ctx.record.stdout
    san = "san" in os.path.basename(os.path.dirname(ctx.fntrace))
    mb = None if san else 64

    # report: every call counted, none returned
    rows = {r["function"]: r for r in ctx.csv()}
    assert int(rows["even"]["calls"]) == N // 2 and int(rows["odd"]["calls"]) == N // 2, rows
    # each call's self time is its own minus its callee's, through the
    # pages that went to the file and back: they add up to the first call's
    assert sum(int(r["self_ns"]) for r in rows.values()) == int(rows["even"]["total_ns"]), rows
    assert int(rows["even"]["max_ns"]) == int(rows["even"]["total_ns"]) > int(rows["odd"]["total_ns"]), rows
    assert measure(ctx, ["report"], mb) < 4096

    # (view arguments, bytes per event at most, or a fixed bound in bytes)
    views = [(["replay", "-D", "3"], None, 4096)]
    if not san:
        views += [
            (["graph"], None, 32 << 20),               # cut at 4096 frames: ~25 MB
            (["export", "-q", "-f", "folded", "-o", "-"], None, 48 << 20),   # ~38 MB
            (["export", "-q", "-f", "svg", "-o", "-"], None, 4 << 20),
            (["info"], None, 4096),
            (["export", "-q", "-f", "html", "-o", "-"], None, 4 << 20),
            (["export", "-q", "-f", "chrome", "-o", "-"], 256, None),        # ~196 B/event
            (["export", "-q", "-f", "perfetto", "-o", "-"], 80, None),       # ~61
            (["export", "-q", "-f", "speedscope", "-o", "-"], 100, None),    # ~78
        ]
    for args, per_event, fixed in views:
        size = measure(ctx, args, mb)
        bound = per_event * EVENTS if per_event else fixed
        assert 0 < size <= bound, (args, size, bound)
