import os
import subprocess


def check(ctx):
    d = os.path.join(ctx.work, "rec-args")
    args = ["-A", "scale<int>@arg1,arg2", "-A", "outer::Local::*@arg1", "-A", "pick(int)@arg1"]
    p = subprocess.run([ctx.fntrace, "record", "-d", d, *args, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert "scale<int>(3, 4)" in out, out
    assert "outer(int)::Local::twice(7)" in out, out
    assert "pick(5)" in out, out
    # pick(double) is another function: no argument spec
    assert out.count("pick(") == 2 and "pick();" in out, out
