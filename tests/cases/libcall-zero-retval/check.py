import re


def check(ctx):
    assert ctx.record.stdout == "r=7 n=1\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    # setjmp: once (the longjmp back is not a call), its argument, no value
    assert len(re.findall(r"\| +_setjmp\(&env\);", out)) == 1, out
    assert len(re.findall(r"\| +getcontext\(\);", out)) == 1, out
    assert len(re.findall(r"\| +malloc\(\) = 0x[0-9a-f]+;", out)) == 2, out
    assert "?" not in out, out
