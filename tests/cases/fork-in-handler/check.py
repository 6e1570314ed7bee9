import re

# A handler that forks while its thread is inside dlopen/dlclose (the
# runtime's wrapper then holds the module map's lock): the program must
# end (before: it hung in the fork's prepare handler, waiting for a lock
# its own thread held; the harness's timeout stopped it).  Each of the 200
# children is a process of its own; its one call is recorded, or, when
# the fork interrupted the runtime (its guard held, as in the parent),
# counted as lost in a signal handler: recorded + lost accounts for every
# call.


def check(ctx):
    assert ctx.record.stdout == "forks 200\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    assert re.search(r"^processes: 201$", info, re.M), info
    lost = int(re.search(r"^lost: (\d+)$", info, re.M).group(1))
    counts = ctx.counts()
    assert set(counts) <= {"main", "in_child"} and counts["main"] == 1, counts
    assert counts.get("in_child", 0) + lost // 2 == 200 and lost % 2 == 0, (counts, lost)
