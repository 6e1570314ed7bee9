import re


def check(ctx):
    """the two helpers show no values; everything else its own"""
    d, _ = ctx.record_build("cab", stdout="42 ello\n", record_args=["-q", "--auto-args"])
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert re.search(r'\| +b_api\(s="hello"\) \{', out) and re.search(r"\| +a_api\(x=41\) \{", out), out
    assert re.search(r'\} = "ello" /\* b_api \*/', out) and re.search(r"\} = 42 /\* a_api \*/", out), out
    helpers = re.findall(r"\| +(helper.*)", out)
    assert helpers == ["helper();", "helper();"], (helpers, out)
