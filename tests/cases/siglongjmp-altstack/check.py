import re

THREADS = 2
JUMPS = 200
CALLS = 2000000


def check(ctx):
    """each thread's calls are recorded whole after its handlers' jumps out
    of a signal stack: the calls of leaf() per thread, between CALLS and
    CALLS + JUMPS (a jump leaves one); no thread left recording nothing"""
    d = ctx.data
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "could not be decoded" not in info and "damaged" not in info, info
    # info's threads: "TID  COMMAND  EVENTS  exited, N lost"
    evs = [int(m.group(1)) for m in re.finditer(r"^\s+\d+\s+\S+\s+(\d+)\s+exited", info, re.M)]
    assert len(evs) == THREADS + 1, (evs, info)
    for n in sorted(evs)[1:]:
        # every call of leaf() is 2 events; a thread stuck after a jump
        # recorded a fraction of them
        assert n >= 2 * CALLS, (n, info)
    counts = ctx.counts("-d", d)
    assert THREADS * CALLS <= counts.get("leaf", 0) <= THREADS * (CALLS + JUMPS), counts.get("leaf")
    assert counts.get("run") == THREADS and counts.get("main") == 1, counts
    # (not checked: the nesting.  With alarms every 20 us, leaf() shows
    # nested in itself now and then, on this build too: a jump out of a
    # signal stack that lands in a switch back to the thread's stack, not
    # fixed yet)
