import re


def check(ctx):
    """each add gets its own values"""
    d, _ = ctx.record_build("prog", stdout="3 3000\n", record_args=["-q", "--auto-args"])
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert re.search(r"\| +add\(a=1000, b=2000\) = 3000;", out), out
    assert re.search(r"\| +\(anonymous namespace\)::Acc::add\(this=0x[0-9a-f]+, k=2\) = 3;", out), out
