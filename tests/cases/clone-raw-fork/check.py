import re

# A child made by a raw clone system call after a fork() made elsewhere.
# The runtime finds it at its first call, with no pthread_atfork step: the
# time of its fork is not known.  Its inherited frames were taken from the
# earlier fork()'s time, so `replay -F first_fork` showed the raw child's
# child_work and leaf calls under first_fork, where it never ran.  Now its
# frames are not known, and the filters see none of them.


def lines(ctx, *args):
    out = ctx.run("replay", *args, check=True).stdout
    return [l.split("| ", 1)[1].strip() for l in out.splitlines() if "| " in l and not l.startswith("#")]


def check(ctx):
    info = ctx.run("info", check=True).stdout
    procs = re.findall(r"^process (\d+) \(parent (\d+)\)", info, re.M)
    # parent, its fork() child, then the raw child: the order they were made
    assert len(procs) == 3 and procs[1][1] == procs[0][0] and procs[2][1] == procs[0][0], procs
    per = {}
    for r in ctx.csv("--threads"):
        per.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
    assert per[procs[1][0]] == {"leaf": 1}, per
    assert per[procs[2][0]] == {"child_work": 1, "leaf": 2}, per
    # the raw child returns through the frames it inherited: named, from
    # their return addresses
    full = lines(ctx)
    assert "} /* raw_spawn (entered before this process began) */" in full, full
    assert "} /* main (entered before this process began) */" in full, full
    # under first_fork: its own calls and its child's one leaf, nothing of
    # the raw child
    got = lines(ctx, "-F", "first_fork")
    assert not [l for l in got if "child_work" in l], got
    assert len([l for l in got if l.startswith("leaf")]) == 1, got
    # nor under what the parent was running when the raw child made its
    # first call (its fork time taken then put it under wait_child)
    got = lines(ctx, "-F", "wait_child")
    assert not [l for l in got if "child_work" in l], got
