def check(ctx):
    out = ctx.run("replay", "--srcline", check=True).stdout
    lines = [l.split("| ", 1)[1].strip() for l in out.splitlines()[1:]]
    assert lines[0].startswith("main() { [prog.c:14]"), lines
    assert lines[1] == "caller() { [prog.c:8] [from prog.c:16]", lines
    assert lines[2] == "leaf(); [prog.c:2] [from prog.c:10]", lines
    assert lines[3] == "leaf(); [prog.c:2] [from prog.c:11]", lines
