def check(ctx):
    # every frame returned to its real caller: the values came through in
    # order and the program ended normally (it aborted with "shadow stack
    # out of sync" before)
    assert ctx.record.stdout == "got 1\ngot 4\ngot 9\ndone\n", ctx.record.stdout
    assert "out of sync" not in ctx.record.stderr, ctx.record.stderr
