def check(ctx):
    p = ctx.run("replay")
    lines = p.stdout.splitlines()
    # main, 20001 down() entries, the innermost is a leaf, 20000 closing lines
    assert sum(1 for l in lines if l.endswith("down() {")) == 20000, len(lines)
    assert sum(1 for l in lines if l.endswith("down();")) == 1
    assert lines[-1].endswith("} /* main */"), lines[-1]
    deepest = max(len(l.split("| ", 1)[1]) - len(l.split("| ", 1)[1].lstrip()) for l in lines[1:])
    # indentation stops growing at depth 4096 (a 40 KB line helps no one)
    assert deepest == 2 * 4096, deepest
    assert "damage" not in ctx.run("info").stdout
