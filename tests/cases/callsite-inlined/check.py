import os
import re
import subprocess


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
    # -O3 inlines the recursion into itself: the copies show no call site
    # (before, every one showed main's line), the real calls theirs
    rec = os.path.join(ctx.work, "rec")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rec.c")
    subprocess.run([ctx.compiler, "-O3", "-g", "-finstrument-functions", "-o", rec, src], check=True)
    d = os.path.join(ctx.work, "rec.data")
    p = ctx.run("record", "-q", "--callsite", "-d", d, "--", rec, "12", data=False, check=True)
    assert p.stdout == "78\n", p.stdout
    out = ctx.run("replay", "-d", d, "--srcline", "--no-pager", "--fields", "none", check=True).stdout
    sites = re.findall(r"\| +down\(\)(?: \{|;) \[rec\.c:\d+\](.*)", out)
    assert len(sites) == 13 and sites[0] == " [from rec.c:14]", out
    assert all(s in ("", " [from rec.c:9]") for s in sites[1:]), out
