import re


def check(ctx):
    """work has its call site; the calls inlined into it have none shown;
    each level of a direct recursion has the recursive call's line"""
    assert ctx.record.stdout == "13\n5\n", ctx.record.stdout
    out = ctx.run("replay", "--srcline", check=True).stdout
    assert re.search(r"\| +work\(\) \{ \[prog\.cc:\d+\] \[from prog\.cc:33\]", out), out
    inl = re.findall(r"\| +(P::P|twice|outer|inner)\(\)( \{|;)(.*)", out)
    assert sorted(n for n, _, _ in inl) == ["P::P", "inner", "outer", "twice"], out
    assert all("[from" not in rest for _, _, rest in inl), out
    downs = re.findall(r"\| +down\(\)(?: \{|;) \[prog\.cc:\d+\](.*)", out)
    assert len(downs) == 6, out
    assert downs[0] == " [from prog.cc:34]", out
    assert downs[1:] == [" [from prog.cc:28]"] * 5, out
