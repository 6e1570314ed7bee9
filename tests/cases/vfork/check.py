import re
# The parent's stream holds only its own calls, closed (the golden replay:
# no in_vfork_child, nothing unwound); the two vfork children's calls are 5
# events counted as lost, under their own kind; the child that exec'd is a
# process of its own with its after_exec call.
def check(ctx):
    assert ctx.record.stdout == "7 0\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    assert re.search(r"^processes: 2$", info, re.M), info
    assert re.search(r"^lost: 5$", info, re.M), info
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 5 in children without TLS of their "
                     r"own \(vfork, clone\), 0 module records$", info, re.M), info
    counts = ctx.counts()
    assert counts == {"main": 2, "in_parent": 3, "after_exec": 1}, counts
    rows = ctx.csv("--threads")
    tids = {r["function"]: r["tid"] for r in rows}
    assert tids["after_exec"] != tids["in_parent"], rows
