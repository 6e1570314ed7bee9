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


def record(ctx, name, *opts):
    return R.record(ctx, name, "prog", "2 14\n", *opts)


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

    want = ["main() {", "  slow() {", "    usleep();", "  } /* slow */", "} /* main */"]
    d = record(ctx, "t", "-t", "50ms")
    assert R.lines(ctx, d) == want, R.lines(ctx, d)
    for r in ctx.csv("-d", d):
        # the threshold is converted to ticks with a 2 ms calibration: 1 % slack
        assert int(r["min_ns"]) >= 50 * MS * 0.99, r
    assert R.lines(ctx, ctx.data, "-t", "50ms") == want, R.lines(ctx, ctx.data, "-t", "50ms")
