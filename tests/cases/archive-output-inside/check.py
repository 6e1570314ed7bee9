import os, subprocess


def tree(d):
    out = {}
    for root, dirs, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


def check(ctx):
    w = ctx.work
    ctx.run("record", "-q", "-d", ctx.data, "--", os.path.join(w, "prog"), check=True)
    before = tree(ctx.data)
    fnt = [f for f in before if f.endswith(".fnt")][0]
    replay = ctx.run("replay", check=True).stdout
    os.symlink("trace.data", os.path.join(w, "link"))
    os.symlink(os.path.join("trace.data", "session"), os.path.join(w, "slink"))
    os.link(os.path.join(ctx.data, "session"), os.path.join(w, "hard"))
    for o, cwd in ((os.path.join("trace.data", fnt), w), ("trace.data/session", w), ("trace.data/inner.tar", w),
                   ("trace.data/symtab/x.tar", w), ("trace.data/../trace.data/x.tar", w), ("link/x.tar", w),
                   ("slink", w), ("x.tar", ctx.data), ("hard", w)):
        p = ctx.run("archive", "-d", ctx.data, "-o", o, cwd=cwd)
        assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, (o, p)
        assert p.stderr.startswith("fntrace: option '-o' names '%s'" % o), (o, p.stderr)
        assert tree(ctx.data) == before, (o, sorted(tree(ctx.data)))
        assert ctx.run("replay", check=True).stdout == replay, o
    # the traced program itself (or a link to it): the archive would replace
    # the file it copies
    with open(os.path.join(w, "prog"), "rb") as f:
        prog = f.read()
    os.symlink("prog", os.path.join(w, "plink"))
    for o in ("prog", "./plink"):
        p = ctx.run("archive", "-d", ctx.data, "-o", o)
        assert p.returncode == 1 and p.stderr == ("fntrace: option '-o' names '%s', a module of the trace ('%s'): "
                                                  "write the archive elsewhere\n" % (o, os.path.join(w, "prog"))), p
        with open(os.path.join(w, "prog"), "rb") as f:
            assert f.read() == prog, o
        assert not os.path.exists(os.path.join(w, "prog.tmp")), o
    # standard output into the trace directory
    with open(os.path.join(ctx.data, "y.tar"), "wb") as f:
        p = subprocess.run([ctx.fntrace, "archive", "-d", ctx.data, "-o", "-"], stdout=f, stderr=subprocess.PIPE,
                           text=True)
    assert p.returncode == 1 and "standard output" in p.stderr, p.stderr
    assert os.path.getsize(os.path.join(ctx.data, "y.tar")) == 0
    os.unlink(os.path.join(ctx.data, "y.tar"))
    # beside it is fine
    p = ctx.run("archive", "-d", "trace.data", "-o", "trace.data.tar", check=True)
    assert tree(ctx.data) == before
