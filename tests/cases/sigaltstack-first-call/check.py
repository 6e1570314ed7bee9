def check(ctx):
    # the handler ran to the end on the small stack, and was recorded
    assert ctx.record.stdout == "handler result 21\n", ctx.record.stdout
    assert "sigaltstack used:" in ctx.record.stderr, ctx.record.stderr
