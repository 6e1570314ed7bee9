def check(ctx):
    assert ctx.record.stdout == "thread returned 7, sorted 1 2 3\n", ctx.record.stdout
