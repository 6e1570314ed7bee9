import os
import stat
import subprocess


def export(ctx, out, fmt="folded"):
    return subprocess.run([ctx.fntrace, "export", "-q", "--format", fmt, "-d", ctx.data, "-o", out],
                          capture_output=True, text=True, cwd=ctx.work, timeout=120)


def check(ctx):
    w = ctx.work
    # -o -: standard output, the reference for the rest
    p = export(ctx, "-")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    folded = p.stdout
    lines = sorted(l.rsplit(" ", 1)[0] for l in folded.splitlines())
    assert lines == ["main", "main;mid", "main;mid;leaf"], folded

    # a FIFO stays a FIFO, and what is written into it is the export
    fifo = os.path.join(w, "out.fifo")
    os.mkfifo(fifo, 0o600)
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader, so the writer's open does not block
    p = export(ctx, fifo)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    got = b""
    try:
        while True:
            b = os.read(rd, 65536)
            if not b:
                break
            got += b
    except BlockingIOError:
        pass
    os.close(rd)
    assert got.decode() == folded, got

    # a symlink stays a symlink; its target gets the export
    target = os.path.join(w, "target.folded")
    open(target, "w").write("old\n")
    os.chmod(target, 0o604)
    link = os.path.join(w, "link.folded")
    os.symlink("target.folded", link)
    p = export(ctx, link)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert os.path.islink(link) and os.readlink(link) == "target.folded"
    assert open(target).read() == folded
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o604

    # an existing regular file is replaced atomically and keeps its mode
    for mode in (0o640, 0o600, 0o664):
        f = os.path.join(w, "existing-%o.json" % mode)
        open(f, "w").write("old\n")
        os.chmod(f, mode)
        p = export(ctx, f, "chrome")
        assert p.returncode == 0 and p.stderr == "", p.stderr
        assert stat.S_IMODE(os.lstat(f).st_mode) == mode, (oct(mode), oct(os.lstat(f).st_mode))
        assert stat.S_ISREG(os.lstat(f).st_mode)
        assert open(f).read().count('"name":"leaf"') == 12      # B and E of 6 calls
    # no temporary file is left behind anywhere
    assert not [n for n in os.listdir(w) if ".tmp." in n], os.listdir(w)

    # a new file is as private as the trace it is made from (names, times,
    # captured arguments): 0600 minus the umask, not 0666 minus the umask
    # (0644 under umask 022, as it was)
    for umask, want in (("022", 0o600), ("027", 0o600), ("077", 0o600), ("277", 0o400)):
        new = os.path.join(w, "new-%s.folded" % umask)
        p = subprocess.run(["sh", "-c", 'umask %s; exec "$@"' % umask, "sh", ctx.fntrace, "export", "--format",
                            "folded", "-d", ctx.data, "-o", new], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert stat.S_IMODE(os.lstat(new).st_mode) == want, (umask, oct(os.lstat(new).st_mode))
        assert open(new).read() == folded

    # a symlink into a directory that does not exist: one clear line
    os.symlink("no/such/dir/x", os.path.join(w, "dangling"))
    p = export(ctx, os.path.join(w, "dangling"))
    assert p.returncode == 1, p
    assert p.stderr == "fntrace: cannot write '%s': No such file or directory\n" % os.path.join(w, "dangling"), \
        p.stderr
    assert os.path.islink(os.path.join(w, "dangling"))

    # what the export is made from is never replaced: a file of the trace
    # (its .fnt file: the trace was lost; through a hard link or standard
    # output too) or its program; a new file beside the trace's is fine
    def tree(d):
        out = {}
        for root, _, files in os.walk(d):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    out[os.path.relpath(os.path.join(root, f), d)] = fh.read()
        return out
    before = tree(ctx.data)
    with open(os.path.join(w, "prog"), "rb") as f:
        prog = f.read()
    fnt = [f for f in before if f.endswith(".fnt")][0]
    os.link(os.path.join(ctx.data, "session"), os.path.join(w, "hard"))
    for o, what in ((os.path.join(ctx.data, fnt), "a file of the trace ('%s')" % os.path.join(ctx.data, fnt)),
                    (os.path.join(ctx.data, "session"), "a file of the trace ('%s')" % os.path.join(ctx.data, "session")),
                    ("hard", "a file of the trace ('%s')" % os.path.join(ctx.data, "session")),
                    ("prog", "a module of the trace ('%s')" % os.path.join(w, "prog"))):
        p = export(ctx, o)
        assert p.returncode == 1 and p.stderr == ("fntrace: option '-o' names '%s', %s: write the export elsewhere\n"
                                                  % (o, what)), (o, p.stderr)
        assert tree(ctx.data) == before, o
    with open(os.path.join(w, "prog"), "rb") as f:
        assert f.read() == prog
    with open(os.path.join(ctx.data, fnt), "ab") as f:
        p = subprocess.run([ctx.fntrace, "export", "-q", "--format", "folded", "-d", ctx.data, "-o", "-"], stdout=f,
                           stderr=subprocess.PIPE, text=True, cwd=w, timeout=120)
    assert p.returncode == 1 and p.stderr == ("fntrace: option '-o -': standard output is '%s', a file of the "
                                              "trace: write the export elsewhere\n" % os.path.join(ctx.data, fnt)), p.stderr
    assert tree(ctx.data) == before
    p = export(ctx, os.path.join(ctx.data, "beside.folded"))
    assert p.returncode == 0 and open(os.path.join(ctx.data, "beside.folded")).read() == folded, p.stderr
    os.unlink(os.path.join(ctx.data, "beside.folded"))

    # the flame graph options with a format that has none: said, not dropped silently
    p = subprocess.run([ctx.fntrace, "export", "--format", "chrome", "--inverted", "--value", "calls", "-d", ctx.data,
                        "-o", os.path.join(w, "opts.json")], capture_output=True, text=True, cwd=w, timeout=120)
    assert p.returncode == 0 and p.stderr.splitlines()[:2] == [
        "fntrace: warning: option '--value' applies to folded, svg and html only: ignored for chrome",
        "fntrace: warning: option '--inverted' applies to svg and html only: ignored for chrome"], p.stderr
    p = subprocess.run([ctx.fntrace, "export", "-q", "--format", "folded", "--value", "calls", "--no-collapse",
                        "--title", "t", "-d", ctx.data, "-o", "-"], capture_output=True, text=True, cwd=w, timeout=120)
    assert p.returncode == 0 and p.stderr == ("fntrace: warning: option '--title' applies to svg and html only: "
                                              "ignored for folded\n"), p.stderr
