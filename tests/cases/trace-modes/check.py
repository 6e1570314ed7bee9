import os
import stat
import subprocess


def modes(top):
    """{relative path: permission bits} of everything under top, top included"""
    out = {".": stat.S_IMODE(os.lstat(top).st_mode)}
    for dirpath, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, top)] = stat.S_IMODE(os.lstat(p).st_mode)
    return out


def kinds(m):
    """the modes by kind: directories ('.', snapshot-*, symtab) and files by name"""
    d = {k: v for k, v in m.items() if k == "." or (k.startswith("snapshot-") or k == "symtab") and "/" not in k}
    f = {k: v for k, v in m.items() if k not in d}
    return d, f


def check(ctx):
    w = ctx.work
    prog = os.path.join(w, "prog")
    # the default, even under a permissive umask: directories 0700, files 0600
    m = modes(ctx.data)
    dirs, files = kinds(m)
    assert set(dirs.values()) == {0o700}, m
    assert set(files.values()) == {0o600}, m
    names = sorted(n for n in files if "/" not in n)
    assert "session" in names and ".lock" in names and any(n.endswith(".fnt") for n in names), names
    snap = [n for n in files if n.startswith("snapshot-mid/") and n.endswith(".fnt")]
    assert len(snap) == 1, m
    # a umask of 0 widens nothing
    env = dict(os.environ)
    p = subprocess.run(["sh", "-c", 'umask 000; exec "$@"', "sh", ctx.fntrace, "record", "-d", w + "/u0.data",
                        "--", prog], capture_output=True, text=True, env=env, cwd=w)
    assert p.returncode == 0, p.stderr
    dirs, files = kinds(modes(w + "/u0.data"))
    assert set(dirs.values()) == {0o700} and set(files.values()) == {0o600}, (dirs, files)
    # --mode widens, exactly, whatever the umask: 0640 -> files 0640, directories 0750
    for mode, want_f, want_d, mask in (("0640", 0o640, 0o750, "077"), ("644", 0o644, 0o755, "022")):
        d = w + "/m%s.data" % mode
        p = subprocess.run(["sh", "-c", 'umask %s; exec "$@"' % mask, "sh", ctx.fntrace, "record", "--mode", mode,
                            "-d", d, "--", prog], capture_output=True, text=True, cwd=w)
        assert p.returncode == 0, p.stderr
        dirs, files = kinds(modes(d))
        assert files.pop(".lock") == 0o600, files   # only recorders use it
        assert set(dirs.values()) == {want_d}, (mode, dirs)
        assert set(files.values()) == {want_f}, (mode, files)
        assert len(files) == 4, files     # session, the trace, its snapshot-mid/ copy, symtab/ of prog
        r = ctx.run("report", "--format", "csv", "-d", d, check=True)
        assert "secret,4," in r.stdout, r.stdout
    # live passes --mode on to record
    p = ctx.run("live", "--mode", "0640", "-d", w + "/live.data", "--", prog, data=False)
    assert p.returncode == 0 and "secret" in p.stdout, p
    dirs, files = kinds(modes(w + "/live.data"))
    files.pop(".lock")
    assert set(dirs.values()) == {0o750} and set(files.values()) == {0o640}, (dirs, files)
    # modes that would let others write, or lock the owner out, are usage errors
    for bad in ("0666", "0400", "0700", "rw", "", "0600x"):
        p = ctx.run("record", "--mode", bad, "-d", w + "/bad.data", "--", prog, data=False)
        assert p.returncode == 2, (bad, p)
        assert p.stderr.startswith("fntrace: option '--mode' takes octal file permissions from 0600 to 0644"), p.stderr
        assert not os.path.exists(w + "/bad.data"), bad

    # the runtime alone (this program links it): it makes its directory
    # private too, and will not write into one that others may write into
    env = dict(os.environ, FNTRACE_DIR=w + "/linked.data")
    p = subprocess.run([prog], capture_output=True, text=True, env=env, cwd=w)
    assert p.returncode == 0 and p.stdout == "18\n", p
    dirs, files = kinds(modes(w + "/linked.data"))
    assert set(dirs.values()) == {0o700} and set(files.values()) == {0o600}, (dirs, files)
    os.makedirs(w + "/open.data")
    os.chmod(w + "/open.data", 0o777)
    env = dict(os.environ, FNTRACE_DIR=w + "/open.data")
    p = subprocess.run([prog], capture_output=True, text=True, env=env, cwd=w)
    assert p.returncode == 0 and p.stdout == "no snapshot\n18\n", p
    assert p.stderr == "fntrace: cannot create a trace file in '%s/open.data': Operation not permitted; " \
        "not recording\n" % w, p.stderr
    assert os.listdir(w + "/open.data") == []
