import os, subprocess
def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    out = subprocess.run(["readelf", "-n", prog], capture_output=True, text=True, check=True).stdout
    bid = [l.split(":")[1].strip() for l in out.splitlines() if "Build ID" in l][0]
    dbg = os.path.join(ctx.work, "dbg", ".build-id", bid[:2], bid[2:] + ".debug")
    os.makedirs(os.path.dirname(dbg))
    subprocess.run(["objcopy", "--only-keep-debug", prog, dbg], check=True)
    subprocess.run(["strip", "-g", prog], check=True)     # same build-id, no DWARF left
    # the symbol table is still there: names without lines
    p = ctx.run("replay", "--srcline", check=True)
    assert "helper();" in p.stdout and "prog.c" not in p.stdout, p.stdout
    p = ctx.run("replay", "--srcline", "--debug-dir", os.path.join(ctx.work, "dbg"), check=True)
    assert "helper(); [prog.c:2]" in p.stdout, p.stdout
    # record --report prints the profile when the program exits
    p = ctx.run("record", "--report", "-d", os.path.join(ctx.work, "r.data"), "--", prog, data=False)
    assert p.returncode == 0 and "Total time" in p.stdout and "helper" in p.stdout, p
    # fully stripped: the debug file supplies names too
    subprocess.run(["strip", "--strip-all", prog], check=True)
    p = ctx.run("replay", "--srcline", "--debug-dir", os.path.join(ctx.work, "dbg"), check=True)
    assert "helper(); [prog.c:2]" in p.stdout, p.stdout
