import re

THREADS = 2
JUMPS = 200
CALLS = 2000000


def check_calls(ctx, d, jumps):
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
    assert THREADS * CALLS <= counts.get("leaf", 0) <= THREADS * (CALLS + jumps), counts.get("leaf")
    assert counts.get("run") == THREADS and counts.get("main") == 1, counts


def check_nesting(ctx, d):
    # leaf() only under run(): never inside a leaf() that a jump left
    rows = [l for l in ctx.run("graph", "-d", d, check=True).stdout.splitlines() if re.search(r"\bleaf\b", l)]
    assert len(rows) == 1 and re.search(r"\s\+-leaf$", rows[0]), rows[:4]


def check(ctx):
    """each thread's calls are recorded whole after its handlers' jumps out
    of a signal stack: the calls of leaf() per thread, between CALLS and
    CALLS + JUMPS (a jump leaves one); no thread left recording nothing;
    leaf() only under run().  The same on the -pg -mfentry build, whose
    program runs to its end (it aborted, "shadow stack out of sync"), with
    handlers that jump and with handlers that return ("return": every
    call recorded)"""
    check_calls(ctx, ctx.data, JUMPS)
    check_nesting(ctx, ctx.data)
    for args, jumps in (((), JUMPS), (("return",), 0)):
        d = ctx.record_build("prog-fentry", stdout="leaf %d\n" % (THREADS * CALLS), args=args)[0]
        check_calls(ctx, d, jumps)
        check_nesting(ctx, d)
