import os
import re
import shutil
import struct

# Processes are listed in the order they were made: the parent, its child,
# the child's image after exec.  A forked child's start converts with the
# widest usable clock fit of the processes that share its calibration.  A
# parent whose end sample is corrupt (its ticks 5000 times as far: the fit
# is rejected, its times stay in raw ticks) must not lend that to its
# child: the child's start, read in raw ticks (2.6 per ns here), came after
# the exec'd image that followed it.


def procs(ctx, d):
    info = ctx.run("info", "-d", d, check=True)
    return [l for l in info.stdout.splitlines() if l.startswith("process ")], info.stderr


def check(ctx):
    got, _ = procs(ctx, ctx.data)
    assert len(got) == 3, got
    parent = got[0].split()[1]
    assert re.match(r"process (\d+) \(parent %s\): " % parent, got[1]), got
    child = got[1].split()[1]
    assert re.match(r"process %s \(parent %s\) after exec: " % (child, parent), got[2]), got

    if "clock: tsc" not in ctx.run("info", check=True).stdout:
        return                  # no fit to corrupt: times are ns already
    bad = os.path.join(ctx.work, "bad.data")
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(ctx.data, bad)
    with open(os.path.join(bad, "%s-0.fnt" % parent), "r+b") as fh:
        b = bytearray(fh.read(4096))
        cal0_ticks = struct.unpack_from("<Q", b, 56)[0]
        end_ticks = struct.unpack_from("<Q", b, 104)[0]
        assert end_ticks > cal0_ticks, (end_ticks, cal0_ticks)     # it exited: end fields set
        struct.pack_into("<Q", b, 104, cal0_ticks + 5000 * (end_ticks - cal0_ticks))
        fh.seek(0)
        fh.write(b)
    lines, err = procs(ctx, bad)
    assert "the clock calibration is unusable" in err, err
    assert lines == got, (lines, got)
