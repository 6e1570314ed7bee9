import re


def check(ctx):
    """every parameter shown, with its value"""
    d, _ = ctx.record_build("prog", stdout="202 13 19 11\n", record_args=["-q", "--auto-args"])
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert re.search(r"\| +wide\(a=65, b=66, c=67, d=4\) = 202;", out), out
    assert re.search(r"\| +ptrs\(ip=&gvar, np=\{\.\.\.\}, k=7\) = 13;", out), out
    assert re.search(r"\| +callmf\(w=0x[0-9a-f]+, mf=\{\.\.\.\}, k=6, m=1\)", out), out
    assert re.search(r"\} = 19 /\* callmf \*/|callmf\(.*\) = 19;", out), out
    assert re.search(r"\| +dm\(w=0x[0-9a-f]+, p=4, k=2\) = 11;", out), out
