import os, shutil, subprocess, tarfile


def build_id(f):
    return [l.split(":")[1].strip() for l in subprocess.run(["readelf", "-n", f], capture_output=True, text=True,
            check=True).stdout.splitlines() if "Build ID" in l][0]


def lines(ctx, data, cwd, *args):
    p = ctx.run("replay", "--srcline", "-d", data, *args, check=True, cwd=cwd)
    return [l.split("| ", 1)[-1] for l in p.stdout.splitlines()[1:]]


def check(ctx):
    w = ctx.work
    prog = os.path.join(w, "prog")
    bid = build_id(prog)
    dbg = os.path.join(w, "dbg")
    os.makedirs(os.path.join(dbg, ".build-id", bid[:2]))
    subprocess.run(["objcopy", "--only-keep-debug", prog, os.path.join(dbg, ".build-id", bid[:2], bid[2:] + ".debug")],
                   check=True)
    subprocess.run(["strip", "-g", prog], check=True)
    ctx.run("record", "-q", "-d", ctx.data, "--", prog, check=True)
    want = lines(ctx, ctx.data, w, "--debug-dir", dbg)
    assert want[0] == "main() { [prog.c:8]", want
    assert lines(ctx, ctx.data, w)[0] == "main() {", lines(ctx, ctx.data, w)

    # without --debug-dir: the archive says which module has no lines
    p = ctx.run("archive", "-d", ctx.data, "-o", os.path.join(w, "a.tar"), check=True)
    assert "no debug info was found for '%s'" % prog in p.stderr and "--debug-dir" in p.stderr, p.stderr

    # with it: the debug file goes in, and nothing is said
    p = ctx.run("archive", "-d", ctx.data, "--debug-dir", dbg, "-o", os.path.join(w, "b.tar"), check=True)
    assert "no debug info" not in p.stderr and "warning" not in p.stderr, p.stderr
    with tarfile.open(os.path.join(w, "b.tar")) as t:
        names = set(m.name for m in t.getmembers())
    assert "trace.data/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]) in names, names

    # the program moved: --prefix-map finds it where the readers would
    moved = os.path.join(w, "moved")
    os.makedirs(moved)
    os.rename(prog, os.path.join(moved, "prog"))
    p = ctx.run("archive", "-d", ctx.data, "--debug-dir", dbg, "-o", os.path.join(w, "c.tar"))
    assert p.returncode == 0 and "'%s' is not in the archive" % prog in p.stderr, p.stderr
    p = ctx.run("archive", "-d", ctx.data, "--debug-dir", dbg, "--prefix-map", w + "=" + moved,
                "-o", os.path.join(w, "c.tar"), check=True)
    assert "warning" not in p.stderr, p.stderr
    with tarfile.open(os.path.join(w, "c.tar")) as t:
        assert set(m.name for m in t.getmembers()) == names
    p = ctx.run("archive", "-d", ctx.data, "--prefix-map", "nothing")
    assert p.returncode == 2 and "OLD=NEW" in p.stderr, p

    # elsewhere, with the program and its debug file gone
    shutil.rmtree(dbg)
    shutil.rmtree(moved)
    shutil.rmtree(ctx.data)
    there = os.path.join(w, "elsewhere")
    os.makedirs(there)
    subprocess.run(["tar", "xf", os.path.join(w, "c.tar")], check=True, cwd=there)
    assert lines(ctx, "trace.data", there) == want
