import collections, os, shutil, subprocess, tarfile


def entries(path):
    with tarfile.open(path) as t:
        names = [m.name for m in t.getmembers()]
    dup = [n for n, c in collections.Counter(names).items() if c > 1]
    assert not dup, ("written more than once", dup)
    return set(names)


def check(ctx):
    w = ctx.work
    lib, lib2 = os.path.join(w, "libshape.so"), os.path.join(w, "libshape2.so")
    shutil.copy(lib, lib2)
    ctx.run("record", "-q", "-d", ctx.data, "--", os.path.join(w, "prog"), lib, lib2, check=True)
    rep = ctx.run("replay", check=True).stdout
    assert rep.count("area();") == 2, rep

    # two traced paths, one build-id: one copy
    p = ctx.run("archive", "-d", ctx.data, "-o", os.path.join(w, "t.tar"), check=True)
    names = entries(os.path.join(w, "t.tar"))
    assert "2 modules" in p.stderr, p.stderr     # prog and the library

    # an unpacked archive, archived while the files are still where they were
    there = os.path.join(w, "elsewhere")
    os.makedirs(there)
    subprocess.run(["tar", "xf", os.path.join(w, "t.tar")], check=True, cwd=there)
    p = ctx.run("archive", "-d", os.path.join(there, "trace.data"), "-o", os.path.join(w, "t2.tar"), check=True)
    assert entries(os.path.join(w, "t2.tar")) == names, p.stderr
    assert "2 modules" in p.stderr, p.stderr
