import re


def calls(out):
    return [re.sub(r"^.*?\| ", "", l).rstrip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


def check(ctx):
    """the same calls as without the trigger: co_work's subtree crossed
    switches to the caller's stack, so it is kept whatever it lasted"""
    assert ctx.record.stdout == "co_work=76\n102 104\n", ctx.record.stdout
    got = calls(ctx.run("replay", check=True).stdout)
    d = ctx.work + "/plain.data"
    ctx.run("record", "-q", "-d", d, "-A", "leaf@arg1", "-R", "leaf@retval", "-A", "resume@arg1",
            "-R", "resume@retval", "--", ctx.work + "/prog", check=True)
    want = calls(ctx.run("replay", "-d", d, check=True).stdout)
    assert got == want, (got, want)
    for line in ("resume(1) {", "} = 102 /* resume */", "resume(2) {", "} = 104 /* resume */", "leaf(25) = 50;"):
        assert [l.strip() for l in got].count(line) == 1, (line, got)
