def check(ctx):
    info = ctx.run("info", check=True).stdout
    assert "processes: 2" in info and "replaced by exec" in info, info
