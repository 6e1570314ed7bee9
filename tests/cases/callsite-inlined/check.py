import re


def check(ctx):
    """work has its call site; the calls inlined into it have none shown"""
    assert ctx.record.stdout == "5\n", ctx.record.stdout
    out = ctx.run("replay", "--srcline", check=True).stdout
    assert re.search(r"\| +work\(\) \{ \[prog\.cc:\d+\] \[from prog\.cc:21\]", out), out
    inl = re.findall(r"\| +(P::P|twice)\(\);(.*)", out)
    assert sorted(n for n, _ in inl) == ["P::P", "twice"], out
    assert all("[from" not in rest for _, rest in inl), out
