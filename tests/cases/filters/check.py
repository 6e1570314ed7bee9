def check(ctx):
    info = ctx.run("info", check=True).stdout
    tid = [l.split()[0] for l in info.splitlines() if l.strip().endswith("exited")][0]
    a = ctx.run("replay", "--tid", tid, check=True).stdout
    b = ctx.run("replay", check=True).stdout
    assert a == b and "scene() {" in a
    p = ctx.run("replay", "--tid", "1")
    assert "no thread" in p.stderr and "scene" not in p.stdout, p
