"""-A/-R: up to 16 items per function (8 before: a 9-item spec was refused
as "item 9 is not valid", and two specs of one function totalling more than
8 recorded nothing, silently).  Past the limit, the message names it."""
import json
import os


def check(ctx):
    calls = {c["name"]: c for c in (json.loads(l) for l in
                                     ctx.run("replay", "--format", "json", check=True).stdout.splitlines())}
    want = ", ".join(str(i) for i in range(1, 13))
    assert calls["twelve"]["args"] == want, calls["twelve"]
    assert calls["twice"]["args"] == want and calls["twice"]["retval"] == "-6", calls["twice"]

    items = ",".join("arg%d" % (i % 16 + 1) for i in range(17))
    p = ctx.run("record", "-q", "-d", os.path.join(ctx.work, "x.data"), "-A", "twelve@" + items, "--",
                os.path.join(ctx.builddir, "prog"), data=False)
    assert p.returncode == 2 and "has more than 16 items, the most one function can have" in p.stderr, p.stderr
