"""Boost.Context (the library's own jump_fcontext, assembly that switches
stacks by hand) under -finstrument-functions, -pg -mfentry and
-fpatchable-function-entry: the program prints what it prints untraced,
every build counts the same calls, and the replay, Boost's own frames
hidden, nests each fiber's calls on its stack: the generator's
yield_value() open across next(), closed when next() resumes it; the two
ping-pong fibers' ping_step() calls likewise.  No frame is unwound; only
the fibers' entry frames, which never return (Boost frees their stacks),
close as "trace ended"."""
import os

OUT = "generator 34, pingpong 918\n"
COUNTS = {"main": 1, "run_generator": 1, "next": 5, "generate": 1, "yield_value": 4, "square": 4, "consume": 4,
          "run_pingpong": 1, "ping_step": 6, "leaf": 6}
HIDE = ["-H", "boost::*", "-H", "std::*", "-H", "*operator*"]


def check(ctx):
    golden = open(os.path.join(os.path.dirname(__file__), "expected", "replay")).read()
    for d in [None] + [ctx.record_build(p, stdout=OUT, record_args=["--no-libcall"])[0]
                       for p in ("prog-fentry", "prog-patchable")]:
        where = ("-d", d) if d else ()
        if d is None:
            assert ctx.record.stdout == OUT, ctx.record.stdout
        got = {k: v for k, v in ctx.counts(*where).items() if k in COUNTS}
        assert got == COUNTS, (d, got)
        out = ctx.run("replay", "--no-pager", "--fields", "none", *where, *HIDE, check=True).stdout
        assert out == golden, (d, out)
        full = ctx.run("replay", "--no-pager", "--fields", "none", *where, check=True).stdout
        ended = [l for l in full.splitlines() if "(no return" in l]
        assert len(ended) == 2 and all("fiber_entry<" in l and "trace ended" in l for l in ended), (d, ended)
