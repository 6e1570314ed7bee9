def check(ctx):
    # the same frames as untraced: no libfntrace trampoline, nothing missing
    want = "backtrace: leaf mid top main\nunwind: leaf mid top main\nraw walk starts at: leaf\n"
    assert ctx.record.stdout == want, ctx.record.stdout
