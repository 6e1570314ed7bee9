"""What the perf cases share: whether `perf record` works on this machine,
and `perf record` around `fntrace record`."""
import os
import shutil
import subprocess


def usable(ctx, how=("-g",)):
    """(perf's path, None), or (None, why the case is skipped here); how:
    the call-graph option the case records with"""
    perf = shutil.which("perf")
    if not perf:
        return None, "perf is not installed (apt-get install linux-perf)"
    p = subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", *how,
                        "-o", os.path.join(ctx.work, "probe.data"), "--", "true"],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    if p.returncode:
        return None, "'perf record' fails here: %s" % (p.stderr.strip().splitlines() or
                                                      ["status %d" % p.returncode])[-1]
    return perf, None


def record(ctx, perf, data, d, prog, how=("-g",), args=(), env=None):
    """`perf record` (the call graph as how says) around `fntrace record` of
    prog: perf's samples in data, the trace in d; the finished process"""
    return subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", *how, "-o", data, "--",
                           ctx.fntrace, "record", "-d", d, *args, "--", prog], capture_output=True, text=True,
                          cwd=ctx.work, timeout=120, env=env)
