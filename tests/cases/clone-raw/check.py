import re
# The program ran to its end.  The SIGCHLD child is a process of its own
# with all its calls (the golden counts: child_fn 1, in_clone_child 1000),
# and the parent's file is whole (no missing chunks).  The two children on
# the parent's TLS recorded nothing and are counted: child_fn and 1000
# in_clone_child calls each, 2 events per call, 4004 events.  The CLONE_VM
# child that execs loses exec_fn's entry, and the parent the entry of its
# first call after (in_parent(4)); then it records again (in_parent(5)):
# 4006 in all.  The exec'd image is a third process, with after_exec.
def check(ctx):
    assert ctx.record.stdout == "ok\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    assert re.search(r"^processes: 3$", info, re.M), info
    assert re.search(r"^lost: 4006$", info, re.M), info
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 4006 in children without TLS of "
                     r"their own \(vfork, clone\), 0 module records$", info, re.M), info
    assert "missing" not in info and "damage" not in info, info
    rep = ctx.run("replay", check=True)
    assert "missing" not in rep.stderr and "unwound" not in rep.stdout, (rep.stderr, rep.stdout)
    tids = {}
    for r in ctx.csv("--threads"):
        tids.setdefault(r["function"], set()).add(r["tid"])
    assert tids["child_fn"] == tids["in_clone_child"] and tids["child_fn"] != tids["in_parent"], tids
