"""The program's own exceptions with library calls on.  __cxa_throw and
__cxa_rethrow are traced (their frames close as unwound), __cxa_begin_catch is
a zero-length call; an exception thrown by a qsort callback leaves qsort's
frame unwound; after each catch the calls go on at the depth they were made.
The -pg -mfentry build of the same program, whose frames the runtime follows
exactly, gives the same replay with gcc and clang (expected/replay-fentry) and
the same counts."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import replaycheck as R  # noqa: E402


def calls_of(ctx, d):
    return {k: v for k, v in ctx.counts("-d", d).items() if k != "__cxa_atexit"}


def check(ctx):
    assert ctx.record.stdout == "1 7 2 3\n", ctx.record.stdout
    cyg = calls_of(ctx, ctx.data)
    assert cyg["__cxa_throw"] == 3 and cyg["__cxa_rethrow"] == 1 and cyg["__cxa_begin_catch"] == 4, cyg
    assert cyg["qsort"] == 1 and cyg["cmp_throw"] == 2 and cyg["thrower"] == 2, cyg
    d = R.record(ctx, "fentry", "prog-fentry", "1 7 2 3\n")
    assert R.lines(ctx, d) == R.golden(ctx, "replay-fentry"), "\n".join(R.lines(ctx, d))
    assert calls_of(ctx, d) == cyg, (calls_of(ctx, d), cyg)
