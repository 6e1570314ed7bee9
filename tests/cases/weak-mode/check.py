import os
import re
import subprocess


def check(ctx):
    exe = os.path.join(ctx.work, "prog")
    dyn = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True, check=True).stdout
    assert "libfntrace" not in dyn, dyn
    # alone: runs, every call a no-op (the snapshot says it was not taken)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    p = subprocess.run([exe], capture_output=True, text=True, env=env, cwd=ctx.work)
    assert p.returncode == 0 and p.stdout == "snapshot -1\n", (p.returncode, p.stdout, p.stderr)
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data"))
    # recorded: the snapshot was taken and the stack captured
    assert ctx.record.stdout == "snapshot 0\n", ctx.record.stdout
    assert os.path.isdir(os.path.join(ctx.data, "snapshot-weak"))
    s = ctx.run("stacks", "-d", ctx.data, check=True).stdout
    frames = [l.strip() for l in s.splitlines() if l.startswith("  #")]
    assert frames[:3] == ["#0  prog!work (prog.c:12)", "#1  prog!batch (prog.c:20)", "#2  prog!main (prog.c:26)"], s
