def check(ctx):
    # the nested function read 'base' through the saved static chain: had
    # the trampoline overwritten it, the sum would be wrong or the program dead
    assert ctx.record.stdout == "sum 83\n", ctx.record.stdout
    # the same with values captured everywhere: the trampolines then go
    # straight to their second tier, which must tell the nested function's
    # prologue too (its slot is one further up)
    d = ctx.work + "/args.data"
    p = ctx.run("record", "-d", d, "-A", "*@arg1", "-R", "*@retval", "--", ctx.work + "/prog", check=True)
    assert p.stdout == "sum 83\n", p.stdout
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert "apply(" in out and out.count("add.0(") == 2, out
    assert "= 41" in out and "= 42" in out, out
    assert ctx.counts("-d", d) == {"main": 1, "outer": 1, "apply": 2, "add.0": 2}, ctx.counts("-d", d)
