"""getcontext and setcontext with library calls on: both are zero-length
calls; a setcontext back to getcontext's context on the same stack leaves
go_back() as a longjmp would, so the second go_back() is called from looped(),
not from the first (the runtime notes getcontext like setjmp: before, in a
-finstrument-functions build, the depth stayed two levels off for the rest of
the run, and `record -D 2` lost everything after looped()); so does a
swapcontext back to it, from swap_back().  The -pg -mfentry
build shows the same calls, and -D 2 keeps main's callees in both builds,
with library calls and without, each on the depth of its own stack (as
`replay -D 2` shows the whole trace)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import replaycheck as R  # noqa: E402

OUT = "5 6\n"


def check(ctx):
    assert ctx.record.stdout == OUT, ctx.record.stdout
    c = ctx.counts()
    assert c["getcontext"] == 3 and c["setcontext"] == 2 and c["swapcontext"] == 4 and c["go_back"] == 2, c
    assert c["swap_back"] == 1 and c["looped_swap"] == 1, c
    d = R.record(ctx, "fentry", "prog-fentry", OUT)
    assert R.lines(ctx, d) == ["__cxa_atexit();"] + R.lines(ctx, ctx.data), R.lines(ctx, d)
    for exe in ("prog", "prog-fentry"):
        for libcall, mid in (("--libcall", ["  getcontext();", "  makecontext();", "  swapcontext();"]),
                             ("--no-libcall", [])):
            d = R.record(ctx, "d2-%s%s" % (exe, libcall), exe, OUT, "-D", "2", libcall)
            # (with library calls, main's second swapcontext() comes while
            # co_body() is suspended on its own stack: a sibling at depth 1)
            body = ["  co_body() {", "  swapcontext();", "  } /* co_body */"] if mid else ["  co_body();"]
            want = (["__cxa_atexit();"] if exe == "prog-fentry" and mid else []) + ["main() {", "  looped();", "  looped_swap();"] + \
                mid + body + ["  after();"] + (["  printf();"] if mid else []) + ["} /* main */"]
            assert R.lines(ctx, d) == want, (exe, libcall, R.lines(ctx, d))
