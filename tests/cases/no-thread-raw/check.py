def check(ctx):
    # the worker's one call before the rename and main's are recorded; its
    # five after (once its name is skip-raw) are not
    assert ctx.record.stdout == "17 1\n", ctx.record.stdout
