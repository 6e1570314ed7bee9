def check(ctx):
    # the nested function read 'base' through the saved static chain: had
    # the trampoline overwritten it, the sum would be wrong or the program dead
    assert ctx.record.stdout == "sum 83\n", ctx.record.stdout
