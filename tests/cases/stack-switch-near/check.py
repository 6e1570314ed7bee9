# Two coroutines on stacks 16 KiB apart, which the runtime cannot tell
# apart.  Every build (-finstrument-functions, -pg -mfentry,
# -fpatchable-function-entry) runs as untraced (prints 33, exits 0) and
# counts every call exactly once.  Under -pg and patchable entries, a
# return through a frame that was dropped as left (the other coroutine's,
# on the shared shadow stack) takes the return address kept for it when it
# was dropped (runtime/fentry.c, the graveyard); before, the program was
# aborted ("shadow stack out of sync").  The trace shows those frames as
# unwound where they were dropped: what it cannot know, it does not guess.

COUNTS = {"main": 1, "run": 1, "new_stack": 2, "yield_to": 7, "ping": 1, "pong": 1, "ping_step": 3,
          "pong_step": 3, "leaf": 6}


def check(ctx):
    assert ctx.record.stdout == "33\n", ctx.record.stdout
    assert ctx.counts() == COUNTS, ctx.counts()
    for prog in ("prog-fentry", "prog-patchable"):
        d, rec = ctx.record_build(prog, "33\n")
        assert "out of sync" not in rec.stderr, (prog, rec.stderr)
        assert ctx.counts("-d", d) == COUNTS, (prog, ctx.counts("-d", d))
        info = ctx.run("info", "-d", d, check=True).stdout
        assert "\nlost: 0\n" in info, (prog, info)
