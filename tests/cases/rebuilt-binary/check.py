import os, shutil, subprocess
def check(ctx):
    assert "work();" in ctx.run("replay", check=True).stdout
    prog = os.path.join(ctx.work, "prog")
    os.makedirs(ctx.work + "/moved", exist_ok=True)
    shutil.move(prog, ctx.work + "/moved/prog")
    # the names record saved in the trace (DIR/symtab) stand in for the file
    p = ctx.run("replay")
    assert "cannot open" in p.stderr and "saved in the trace" in p.stderr and "work();" in p.stdout, p
    os.rename(ctx.data + "/symtab", ctx.data + "/symtab.away")
    p = ctx.run("replay")
    assert "cannot open" in p.stderr and "prog+0x" in p.stdout, p
    p = ctx.run("replay", "--prefix-map", ctx.work + "=" + ctx.work + "/moved", check=True)
    assert "work();" in p.stdout and "cannot open" not in p.stderr, p
    src = os.path.join(os.path.dirname(__file__), "prog.c")
    subprocess.run(["cc", "-O1", "-finstrument-functions", "-DREBUILT=1", "-o", prog, src], check=True)
    p = ctx.run("replay")
    assert "rebuilt" in p.stderr and "build-id" in p.stderr and "prog+0x" in p.stdout, p
    assert "work();" not in p.stdout
    os.rename(ctx.data + "/symtab.away", ctx.data + "/symtab")
    p = ctx.run("replay")
    assert "rebuilt" in p.stderr and "saved in the trace" in p.stderr and "work();" in p.stdout, p
