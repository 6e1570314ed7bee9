import os, shutil, stat, subprocess, tarfile


def views(ctx, data, cwd):
    rep = ctx.run("replay", "--srcline", "-d", data, check=True, cwd=cwd)
    csv = ctx.run("report", "--format", "csv", "-s", "name", "-d", data, check=True, cwd=cwd)
    return [l.split("| ", 1)[-1] for l in rep.stdout.splitlines()], csv.stdout, rep.stderr + csv.stderr


def check(ctx):
    w = ctx.work
    prog, lib = os.path.join(w, "prog"), os.path.join(w, "libshape.so")
    # the library's DWARF in a separate file, found through its .gnu_debuglink
    subprocess.run(["objcopy", "--only-keep-debug", lib, lib + ".debug"], check=True)
    subprocess.run(["strip", "-g", lib], check=True)
    subprocess.run(["objcopy", "--add-gnu-debuglink=" + lib + ".debug", lib], check=True, cwd=w)
    ctx.run("record", "-q", "--callsite", "-d", ctx.data, "--", prog, check=True)
    rep, csv, err = views(ctx, ctx.data, w)
    assert rep[1].startswith("main() { [prog.c:13]"), rep
    assert "    area(); [shape.c:2] [from prog.c:9]" in rep, rep
    assert "warning" not in err, err

    out = os.path.join(w, "t.tar")
    p = ctx.run("archive", "-d", ctx.data, "-o", out, check=True)
    assert p.stderr.startswith("fntrace: wrote '%s' (" % out) and "tar xf" in p.stderr, p.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    with tarfile.open(out) as t:
        members = {m.name: m for m in t.getmembers()}
    assert all(m.mode == (0o700 if m.isdir() else 0o600) for m in members.values()), members
    names = set(members)
    assert any(n.startswith("trace.data/") and n.endswith(".fnt") for n in names), names
    assert "trace.data/session" in names and ".lock" not in " ".join(names), names
    for f in (prog, lib):
        bid = [l.split(":")[1].strip() for l in subprocess.run(["readelf", "-n", f], capture_output=True,
               text=True, check=True).stdout.splitlines() if "Build ID" in l][0]
        assert "trace.data/debug/.build-id/%s/%s" % (bid[:2], bid[2:]) in names, (f, names)
        assert "trace.data/symtab/%s.sym" % bid in names, names
        if f == lib:
            assert "trace.data/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]) in names, names

    # elsewhere, with the program, the library, its debug file and the trace gone
    there = os.path.join(w, "elsewhere")
    os.makedirs(there)
    subprocess.run(["tar", "xf", out], check=True, cwd=there)
    for f in (prog, lib, lib + ".debug"):
        os.unlink(f)
    shutil.rmtree(ctx.data)
    rep2, csv2, err2 = views(ctx, "trace.data", there)
    assert (rep2, csv2) == (rep, csv), (rep, rep2, csv, csv2)
    assert "warning" not in err2, err2
    # the unpacked archive archives again, whole
    p = ctx.run("archive", "-d", os.path.join(there, "trace.data"), "-o", os.path.join(w, "t2.tar"), check=True)
    with tarfile.open(os.path.join(w, "t2.tar")) as t:
        assert set(m.name for m in t.getmembers()) == names, p.stderr
    # not a trace: one line, status 1
    os.makedirs(os.path.join(w, "empty"))
    p = ctx.run("archive", "-d", os.path.join(w, "empty"))
    assert p.returncode == 1 and len(p.stderr.splitlines()) == 1 and "not a trace" in p.stderr, p
    p = ctx.run("archive", "--bogus")
    assert p.returncode == 2 and p.stderr.startswith("fntrace: unknown option '--bogus'\n"), p
