"""fntrace live without -d records into a private temporary directory
(mode 0700, fntrace-live.XXXXXX under $TMPDIR) that is removed when the view
ends: the user's ./fntrace.data is neither replaced nor moved to
fntrace.data.old.  With -d the trace is kept there."""
import os
import re
import shutil
import subprocess


def lines(out):
    return [re.sub(r"^.*?\| ", "", l).strip() for l in out.splitlines() if "|" in l and "FUNCTION" not in l]


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    cwd = os.path.join(ctx.work, "cwd")
    tmp = os.path.join(ctx.work, "tmp")
    for d in (cwd, tmp):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    env = dict(os.environ, TMPDIR=tmp)
    # the user's own trace in the current directory
    ctx.run("record", "-q", "--", prog, data=False, check=True, cwd=cwd)
    before = ctx.run("replay", "-d", os.path.join(cwd, "fntrace.data"), check=True).stdout
    for _ in range(2):
        p = ctx.run("live", "--", prog, data=False, cwd=cwd, env=env)
        assert p.returncode == 0, (p.returncode, p.stderr)
        m = re.search(r"^TRACEDIR (\S+) (\d+)$", p.stdout, re.M)
        assert m, p.stdout
        path, mode = m.group(1), m.group(2)
        assert os.path.dirname(path) == tmp and re.fullmatch(r"fntrace-live\.\w{6}", os.path.basename(path)), path
        assert mode == "700", mode
        assert lines(p.stdout) == ["main() {", "leaf();", "leaf();", "} /* main */"], p.stdout
        assert p.stderr == "", p.stderr      # no "wrote" line about a directory that is gone
        assert os.listdir(tmp) == [], os.listdir(tmp)
        assert sorted(os.listdir(cwd)) == ["fntrace.data"], os.listdir(cwd)
    after = ctx.run("replay", "-d", os.path.join(cwd, "fntrace.data"), check=True).stdout
    assert after == before, (before, after)
    # -d keeps the trace where it says
    keep = os.path.join(ctx.work, "keep.data")
    p = ctx.run("live", "-d", keep, "--", prog, data=False, cwd=cwd, env=env)
    assert p.returncode == 0 and "TRACEDIR %s " % keep in p.stdout, (p.stdout, p.stderr)
    assert lines(ctx.run("replay", "-d", keep, check=True).stdout) == lines(p.stdout)
    # a program that cannot run: the temporary directory goes too
    p = ctx.run("live", "--", "/nonexistent/prog", data=False, cwd=cwd, env=env)
    assert p.returncode == 127 and os.listdir(tmp) == [], (p.returncode, p.stderr, os.listdir(tmp))
    # live stopped by SIGTERM or SIGHUP (kill, a closed terminal): passed on
    # through record, the view ends with the program, the directory goes
    import signal, subprocess, time
    for sig in (signal.SIGTERM, signal.SIGHUP):
        p = subprocess.Popen([ctx.fntrace, "live", "--", "/bin/sleep", "30"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=cwd, env=env, start_new_session=True)
        # once the program runs under record (a signal before live had
        # its handlers would leave the directory: a loaded machine starts
        # slowly)
        import glob
        for _ in range(3000):
            if glob.glob(os.path.join(tmp, "fntrace-live.*", "*.fnt")) or p.poll() is not None:
                break
            time.sleep(0.01)
        time.sleep(0.1)
        os.kill(p.pid, sig)
        out, err = p.communicate(timeout=60)
        assert p.returncode == -sig, (sig, p.returncode, err)
        assert os.listdir(tmp) == [], (sig, os.listdir(tmp), err)
