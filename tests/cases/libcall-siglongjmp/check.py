"""siglongjmp out of a handler that runs inside raise(), and out of a qsort
callback: siglongjmp's own frame stays open (its return address is kept) and
closes with the frames it leaves, raise and qsort among them.  The -pg -mfentry
build gives the same replay with every compiler (expected/replay-fentry).  The
depth stays exact: with -D 2 at record time the calls made after the jumps are
still there, one level under main; with -N siglongjmp (its kept frame left
out by the filters, then dropped by the jump) the rest is as without it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import replaycheck as R  # noqa: E402

OUT = "1 2 4\n"


def check(ctx):
    assert ctx.record.stdout == OUT, ctx.record.stdout
    c = ctx.counts()
    assert c["siglongjmp"] == 2 and c["__sigsetjmp"] == 2 and c["raise"] == 1 and c["qsort"] == 1, c
    d = R.record(ctx, "fentry", "prog-fentry", OUT)
    assert R.lines(ctx, d) == R.golden(ctx, "replay-fentry"), "\n".join(R.lines(ctx, d))
    fentry = R.golden(ctx, "replay-fentry")
    d = R.record(ctx, "no-siglongjmp", "prog-fentry", OUT, "-N", "siglongjmp")
    assert R.lines(ctx, d) == [l for l in fentry if "siglongjmp" not in l], R.lines(ctx, d)
    for exe, top in (("prog", []), ("prog-fentry", ["__cxa_atexit();"])):
        d = R.record(ctx, "d2-" + exe, exe, OUT, "-D", "2")
        want = top + ["main() {", "  signal();", "  from_handler();", "  from_callback();", "  after();",
                      "  printf();", "} /* main */"]
        assert R.lines(ctx, d) == want, (exe, R.lines(ctx, d))
