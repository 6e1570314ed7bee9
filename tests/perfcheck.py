"""What the perf cases share: whether `perf record` works on this machine."""
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
