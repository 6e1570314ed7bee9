def check(ctx):
    assert ctx.record.stdout == "child exited\nmain done\n", ctx.record.stdout
    # both processes recorded: main's work() and the child's
    assert ctx.counts().get("work", 0) == 2, ctx.counts()
