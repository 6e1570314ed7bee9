import os


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    assert not os.path.exists(prog)
    assert "warning" not in ctx.record.stderr, ctx.record.stderr
    snap = os.path.join(ctx.data, "snapshot-mid")
    p = ctx.run("replay", "--srcline", "-d", snap, check=True)
    lines = [l.split("| ", 1)[1] for l in p.stdout.splitlines()[1:]]
    assert lines[0].startswith("main() { [prog.c:43]"), lines
    assert [l.strip() for l in lines[1:4]] == ["step(); [prog.c:13]"] * 3, lines
    assert "saved in the trace" in p.stderr and "cannot open" in p.stderr, p.stderr
    # the whole trace: late() ran after the snapshot, when the file was gone;
    # its name is in the table all the same (every function symbol is)
    p = ctx.run("replay", check=True)
    assert "late() {" in p.stdout and "prog+0x" not in p.stdout, p.stdout
