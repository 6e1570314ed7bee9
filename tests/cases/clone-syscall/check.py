"""Raw clone through libc's syscall() (issue 11 item 4): a clone(SIGCHLD)
and a clone3 child, both fork-like, get their own trace files like forked
children; the parent's 2000 calls and the children's 3000 and 2000 are
exact, and nothing is damaged (before, the children wrote into the parent's
chunk)."""
import re


def check(ctx):
    info = ctx.run("info", check=True)
    assert re.search(r"^processes: 3$", info.stdout, re.M), info.stdout
    assert "damage" not in info.stdout + info.stderr, info.stdout + info.stderr
    counts = ctx.counts()
    assert counts["in_parent"] == 2000 and counts["in_child"] == 5000 and counts["child_work"] == 2, counts
    rep = ctx.run("report", check=True)
    assert "could not be decoded" not in rep.stderr, rep.stderr
