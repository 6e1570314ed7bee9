import re


def check(ctx):
    out = ctx.record.stdout.splitlines()
    assert len(out) == 2 and re.match(r"back, hits=\d+$", out[0]) and out[1] == "done", ctx.record.stdout
    # a flight recorder keeps the last chunks: the 1000 calls after the jump are all there
    n = ctx.counts().get("leaf", 0)
    assert n >= 1000, n
