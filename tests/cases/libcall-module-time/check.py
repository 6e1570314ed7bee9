"""--module and -t on library calls.  A library call belongs to the module
that makes it (its GOT slot): report has one strlen row per calling module,
--module 'libhelp*' keeps libhelp's help_work and its own strlen and strtol,
--module prog keeps the executable's functions and library calls.  -t 50ms
(record time, and read time on the full recording) keeps the 60 ms usleep
and the calls around it, and erases every shorter call, library calls
included."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import replaycheck as R  # noqa: E402

MS = 1000000
LONG = ("main", "slow", "usleep")


def record(ctx, name, *opts):
    return R.record(ctx, name, "prog", "2 14\n", *opts)


def short_max(ctx, d):
    """the longest call in recording d but main's, slow's and usleep's, ns"""
    return max(int(r["max_ns"]) for r in ctx.csv("-d", d) if r["function"] not in LONG)


def check(ctx):
    assert ctx.record.stdout == "2 14\n", ctx.record.stdout
    rows = ctx.csv()
    by_module = sorted((r["function"], os.path.basename(r["module"])) for r in rows if r["function"] == "strlen")
    assert by_module == [("strlen", "libhelp.so"), ("strlen", "prog")], by_module

    d = record(ctx, "lib", "--module", "libhelp*")
    assert ctx.counts("-d", d) == {"help_work": 1, "strlen": 1, "strtol": 1}, ctx.counts("-d", d)
    assert {os.path.basename(r["module"]) for r in ctx.csv("-d", d)} == {"libhelp.so"}
    d = record(ctx, "exe", "--module", "prog")
    assert ctx.counts("-d", d) == {"main": 1, "slow": 1, "usleep": 1, "quick": 1, "strlen": 1, "printf": 1}, \
        ctx.counts("-d", d)

    # All calls but main's, slow's and usleep's last microseconds, unless
    # the scheduler takes the CPU away inside one: on a loaded machine a
    # call can last 50 ms, and -t rightly keeps it.  Every kept call must
    # have lasted 50 ms; a run that kept another one records again, up to
    # 10 runs, until one gives want.  The read-time check takes a full
    # recording whose other calls are short: the case's own, or one
    # recorded again, up to 10 in all
    want = ["main() {", "  slow() {", "    usleep();", "  } /* slow */", "} /* main */"]
    for _ in range(10):
        d = record(ctx, "t", "-t", "50ms")
        rows = ctx.csv("-d", d)
        for r in rows:
            # the threshold is converted to ticks with a 2 ms calibration: 1 % slack
            assert int(r["min_ns"]) >= 50 * MS * 0.99, r
        if R.lines(ctx, d) == want:
            break
        assert {r["function"] for r in rows} - set(LONG), R.lines(ctx, d)
    assert R.lines(ctx, d) == want, R.lines(ctx, d)
    full = ctx.data
    for _ in range(9):
        if short_max(ctx, full) < 50 * MS:
            break
        full = record(ctx, "full")
        assert ctx.counts("-d", full) == ctx.counts(), ctx.counts("-d", full)
    assert short_max(ctx, full) < 50 * MS, "a short call lasted 50 ms or more in 10 recordings"
    assert R.lines(ctx, full, "-t", "50ms") == want, R.lines(ctx, full, "-t", "50ms")
