import os, re, subprocess

# Every loss reaches `info`, once, by kind (issue 11, item 12): the summary's
# "lost:" and the process's "lost:" line, not only the thread's stream.

def totals(ctx, d):
    info = ctx.run("info", "-d", d, check=True).stdout
    events = int(re.search(r"^events: (\d+)$", info, re.M).group(1))
    lost = int(re.search(r"^lost: (\d+)$", info, re.M).group(1))
    line = re.search(r"^  lost: .*$", info, re.M)
    return events, lost, line.group(0) if line else "", info


def record(ctx, exe, mode):
    d = os.path.join(ctx.work, "%s-%s.data" % (os.path.basename(exe), mode))
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", exe, mode], capture_output=True, text=True,
                       timeout=120)
    return p, d


def limited(ctx, exe, mode, out):
    """the run of mode-ok records every event the program made; the run of
    mode, under the limit, records fewer and counts the rest as lost"""
    p, d = record(ctx, exe, mode + "-ok")
    assert p.returncode == 0 and p.stdout == out, p
    made, lost, _, info = totals(ctx, d)
    assert lost == 0, info
    p, d = record(ctx, exe, mode)
    assert p.returncode == 0 and p.stdout == out, p
    events, lost, line, info = totals(ctx, d)
    assert lost > 0 and events + lost == made, (made, info)
    assert line == "  lost: 0 in signal handlers, %d for lack of space, 0 module records" % lost, info
    return lost


def check(ctx):
    # many, -pg -mfentry: 45 coroutines past the registry, 4 events each; the
    # program made 2 * (main + 4141 make + 4141 coroutine + 4141 park + 4141 leaf)
    assert ctx.record.stdout == "many 8576011\n", ctx.record
    events, lost, line, info = totals(ctx, ctx.data)
    assert lost == 180 and events + lost == 33130, info
    assert line == "  lost: 0 in signal handlers, 0 for lack of space, 180 on stacks past the 4096 parked at " \
                   "once (coroutines), 0 module records", info
    assert re.search(r"^ +\d+ +prog +%d +exited, 180 lost$" % events, info, re.M), info
    # report: 4096 coroutines suspended in park at once are not a recursion:
    # each call's time counts in the total (before: only the last to return,
    # total 46 ms against a self time of 403 s), in the fast path and in the
    # call layer (-D) alike
    for extra in ([], ["-D", "100"]):
        rows = {}
        for l in ctx.run("report", "-d", ctx.data, "--format", "csv", *extra, check=True).stdout.splitlines()[1:]:
            f = l.split(",")
            rows[f[0]] = [int(x) for x in f[1:7]]
        for fn in ("coroutine", "park"):
            calls, total, self_, avg, lo, hi = rows[fn]
            assert calls == 4096 and total >= self_ and abs(total - calls * avg) < calls, (extra, fn, rows[fn])
        assert rows["park"][1] == rows["park"][2], rows["park"]     # (no callees traced)
    # noshadow, -pg only: the thread's one call, left out for want of memory
    # for its shadow stack (before: not counted at all)
    assert limited(ctx, os.path.join(ctx.work, "prog"), "noshadow", "noshadow 6\n") == 2
    for exe in ("prog", "prog-finstr"):
        exe = os.path.join(ctx.work, exe)
        # heldmove: a fiber held by its thread (the registry full) resumed
        # on another thread returns through its frames there (-pg: aborted
        # before, 'shadow stack out of sync')
        p, d = record(ctx, exe, "heldmove")
        assert p.returncode == 0 and p.stdout == "heldmove 8\n" and "out of sync" not in p.stderr, p
        if exe.endswith("prog"):
            # nomem, -pg: the coroutine's stack gets no shadow stack; its
            # calls are left out and counted
            limited(ctx, exe, "nomem", "nomem 3\n")
        else:
            # nomem, -finstrument-functions: a switch needs no memory (the
            # registry of parked stacks is static), so nothing is lost
            events = []
            for mode in ("nomem-ok", "nomem"):
                p, d = record(ctx, exe, mode)
                assert p.returncode == 0 and p.stdout == "nomem 3\n", p
                n, lost, _, info = totals(ctx, d)
                assert lost == 0, info
                events.append(n)
            assert events[0] == events[1] == 12, events
        # badaddr: main and leaf recorded, the two hand-made events lost
        p, d = record(ctx, exe, "badaddr")
        assert p.returncode == 0 and p.stdout == "leaf 2\n", p
        events, lost, line, info = totals(ctx, d)
        assert (events, lost) == (4, 2), info
        assert line == "  lost: 0 in signal handlers, 0 for lack of space, 2 with an address the trace cannot " \
                       "hold (0 or not user space), 0 module records", info
        assert re.search(r"^ +\d+ +prog(-finstr)? +4 +exited, 2 lost$", info, re.M), info
