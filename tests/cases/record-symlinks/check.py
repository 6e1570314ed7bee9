import hashlib
import os
import shutil


def digest(path):
    """what must not change: every name, kind, mode and byte under path"""
    h = hashlib.sha256()
    for dirpath, dirs, files in sorted(os.walk(path)):
        for n in sorted(dirs + files):
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            h.update(("%s %o\n" % (os.path.relpath(p, path), st.st_mode)).encode())
            if os.path.isfile(p):
                h.update(open(p, "rb").read())
    return h.hexdigest()


def record(ctx, d, status=1):
    p = ctx.run("record", "-d", d, "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == status, (d, p.returncode, p.stderr)
    return p.stderr


def check(ctx):
    w = ctx.work
    # a victim's file and directory; the victim's directory looks like a trace
    victim = os.path.join(w, "victim.txt")
    open(victim, "w").write("the victim's data\n")
    vdir = os.path.join(w, "victim-dir")
    os.makedirs(vdir)
    open(os.path.join(vdir, "1-0.fnt"), "w").write("not really a trace\n")
    open(os.path.join(vdir, "session"), "w").write("the victim's session\n")
    before = (digest(vdir), open(victim).read())

    # DIR.old planted as a symlink to the victim's directory: the rotation
    # (which empties the trace before last) must not enter it
    d = os.path.join(w, "b.data")
    record(ctx, d, 0)
    os.symlink(vdir, d + ".old")
    err = record(ctx, d)
    assert err == "fntrace: cannot move the previous trace to '%s.old': it is a symbolic link, which " \
                  "fntrace did not make; remove it or choose another directory with -d\n" % d, err
    assert os.path.islink(d + ".old")
    assert (digest(vdir), open(victim).read()) == before, "the victim's directory changed"

    # .session.tmp planted while the program runs: record writes the session
    # file at the end without following it
    d2 = os.path.join(w, "c.data")
    p = ctx.run("record", "-d", d2, "--", os.path.join(w, "prog"), victim, data=False)
    assert p.returncode == 0, p.stderr
    assert open(victim).read() == before[1], "the victim's file was overwritten"
    assert os.path.isfile(os.path.join(d2, "session")) and not os.path.islink(os.path.join(d2, "session"))
    assert "command=%s %s\n" % (os.path.join(w, "prog"), victim) in open(os.path.join(d2, "session")).read()
    assert "wait_status=0\n" in open(os.path.join(d2, "session")).read()
    assert ctx.counts("-d", d2) == {"main": 1, "work": 3}

    # DIR/.session.tmp planted as a symlink to the victim's file
    d = os.path.join(w, "a.data")
    os.makedirs(d, mode=0o700)
    os.symlink(victim, os.path.join(d, ".session.tmp"))
    err = record(ctx, d)
    assert err == "fntrace: '%s' exists and holds '.session.tmp', which fntrace did not make; " \
                  "choose another directory with -d\n" % d, err
    # ...and the same planted over a trace of ours
    d = os.path.join(w, "b.data")
    os.symlink(victim, os.path.join(d, ".session.tmp"))
    err = record(ctx, d)
    assert "holds '.session.tmp', which fntrace did not make" in err, err
    os.unlink(os.path.join(d, ".session.tmp"))
    # a planted session symlink: refused too
    os.unlink(os.path.join(d, "session"))
    os.symlink(victim, os.path.join(d, "session"))
    err = record(ctx, d)
    assert "holds 'session', which fntrace did not make" in err, err
    os.unlink(os.path.join(d, "session"))

    # a symlink inside a real DIR.old: refused, never entered
    os.unlink(d + ".old")
    os.makedirs(d + ".old", mode=0o700)
    os.symlink(vdir, os.path.join(d + ".old", "snapshot-x"))
    err = record(ctx, d)
    assert "cannot move the previous trace to '%s.old': it exists and holds 'snapshot-x', which fntrace " \
           "did not make" % d in err, err
    shutil.rmtree(d + ".old")
    assert (digest(vdir), open(victim).read()) == before, "the victim's files changed"

    # the trace of the refused records is intact: the first one's, exactly
    assert ctx.counts("-d", d) == {"main": 1, "work": 3}
    # and rotation works when nothing is planted: DIR -> DIR.old, a fresh DIR
    record(ctx, d, 0)
    record(ctx, d, 0)
    assert ctx.counts("-d", d + ".old") == {"main": 1, "work": 3}
    assert ctx.counts("-d", d) == {"main": 1, "work": 3}

    # a directory of another user, or one others may write into: refused
    if os.geteuid() == 0:       # only root can give a directory away
        d = os.path.join(w, "theirs.data")
        os.makedirs(d)
        os.chown(d, 4321, 4321)
        err = record(ctx, d)
        assert err == "fntrace: '%s' belongs to another user (uid 4321); record into a directory of your " \
                      "own with -d\n" % d, err
        assert os.listdir(d) == []
    d = os.path.join(w, "open.data")
    os.makedirs(d)
    os.chmod(d, 0o777)
    err = record(ctx, d)
    assert err == "fntrace: '%s' is writable by other users, who could plant files in it; make it " \
                  "private (chmod go-w '%s') or choose another directory with -d\n" % (d, d), err
    assert os.listdir(d) == []
    # sticky and others-writable (like /tmp) is fine: nobody can rename our files
    os.chmod(d, 0o1777)
    record(ctx, d, 0)
    assert ctx.counts("-d", d) == {"main": 1, "work": 3}
    assert (digest(vdir), open(victim).read()) == before, "the victim's files changed"
