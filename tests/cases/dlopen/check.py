def check(ctx):
    info = ctx.run("info", check=True).stdout
    lines = [l for l in info.splitlines() if "plugin.so" in l]
    assert len(lines) == 2 and all("unloaded at" in l for l in lines), info
