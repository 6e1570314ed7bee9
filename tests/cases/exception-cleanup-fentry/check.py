def check(ctx):
    # D::~D runs in middle's cleanup, after inner was left: it is middle's
    # child and inner's sibling, never inner's child
    out = ctx.run("replay", check=True).stdout
    rows = [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l]
    names = [r.strip() for r in rows]
    dtor = next(i for i, r in enumerate(names) if r.startswith("D::~D"))
    inner = next(i for i, r in enumerate(names) if r.startswith("inner"))
    indent = lambda r: len(r) - len(r.lstrip())
    assert indent(rows[dtor]) == indent(rows[inner]), out
    assert "inner() {" not in names[inner] or "unwound" in names[inner + 1], out
    assert ctx.record.stdout == "~D 7\n", ctx.record.stdout
