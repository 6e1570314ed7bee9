"""The runtime, started by a .preinit_array function before libc set up
environ, still records into -d's directory with -F's filter (golden:
only the three *_work calls); nothing is written to ./fntrace.data.
Without filters, the whole early code is there, in order."""
import os
import re


def check(ctx):
    assert ctx.record.stdout == "6 42\n", ctx.record.stdout
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data")), os.listdir(ctx.work)
    d = ctx.data + ".all"
    p = ctx.run("record", "-d", d, "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data")), os.listdir(ctx.work)
    out = ctx.run("replay", "-d", d, check=True).stdout
    calls = re.findall(r"\| +(\w+)\(\)", out)
    assert calls == ["preinit", "early_work", "lib_init", "lib_early_work", "main", "late_work", "lib_value"], out
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "\nfilters:" not in info, info
