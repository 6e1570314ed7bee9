"""Record-time filters keep what the same filter keeps at read time across
the exceptions (also where the exception lands outside a -F subtree): the runtime's depths go down where an exception lands
(clang's -finstrument-functions calls no exit hook for the frames it
unwinds, and its depths stayed as if they were open: `record -D 2` dropped
every call after the first exception, `record -N mid` everything after
mid's, `record -F outer` kept main's later calls); and `record -C` erases
the calls an exception leaves that led to no match, as at read time (they
stayed, with clang; with gcc, a landing pad's record written between a
frame's entry and its exit hook kept the frame from being erased)."""
import os


def calls(text):
    """the replay's lines without their duration and thread columns"""
    return [l.split("| ", 1)[1] for l in text.splitlines()[1:]]


def check(ctx):
    full = os.path.join(ctx.work, "trace.data")
    # (-F inner, mid, check, again: an exception thrown through the -F
    # function and caught outside it, in a frame the filter left out: the
    # runtime noted no function at the depths it decided without filter.c,
    # so the landing went unseen and everything after was recorded, inside
    # the -F function; then, with the depths right, the written frames of
    # the -F function stayed open, since the reader never saw the frame it
    # landed in)
    for opts in (["-D", "2"], ["-D", "3"], ["-N", "mid"], ["-F", "outer"], ["-H", "check"], ["-C", "leaf"],
                 ["-C", "check"], ["-F", "inner"], ["-F", "mid"], ["-F", "check"], ["-F", "again"], ["-H", "mid"],
                 ["-F", "outer", "-N", "mid"]):
        d = os.path.join(ctx.work, "rec.data")
        ctx.run("record", "-q", "-d", d, *opts, "--", os.path.join(ctx.work, "prog"), data=False, check=True)
        rec = calls(ctx.run("replay", "-d", d, check=True).stdout)
        read = calls(ctx.run("replay", "-d", full, *opts, check=True).stdout)
        assert rec == read, (opts, rec, read)
        assert len(rec) >= 4, (opts, rec)
