import os
import subprocess


def start(ctx, d):
    """a record into d whose program runs until told to finish; returns
    once the program said it is running (so record holds d)"""
    p = subprocess.Popen([ctx.fntrace, "record", "-q", "-d", d, "--", os.path.join(ctx.work, "prog")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ctx.work)
    assert p.stdout.readline() == "ready\n", p.stderr.read()
    return p


def finish(p):
    out, err = p.communicate("go\n", timeout=120)
    assert p.returncode == 0 and out == "16\n" and err == "", (p.returncode, out, err)


def second(ctx, d):
    """another record into d, whose program would finish at once"""
    return subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", os.path.join(ctx.work, "prog")], input="go\n",
                          capture_output=True, text=True, cwd=ctx.work, timeout=120)


def check(ctx):
    d = ctx.data
    want = {"main": 1, "work": 7, "finish": 1}

    # a second record into a directory the first holds is refused, and
    # changes nothing there (a fresh directory, then one with an old trace)
    for rounds in range(2):
        first = start(ctx, d)
        before = sorted(os.listdir(d))
        q = second(ctx, d)
        assert q.returncode == 1 and q.stdout == "", q
        assert q.stderr == "fntrace: '%s' is in use by another 'fntrace record' (pid %d); wait for it to " \
            "end or choose another directory with -d\n" % (d, first.pid), q.stderr
        assert sorted(os.listdir(d)) == before
        finish(first)
        assert ctx.counts("-d", d) == want
        # the refused record ran nothing: the first one's calls only, one process
        assert "processes: 1\n" in ctx.run("info", "-d", d, check=True).stdout

    # nor does a record rotate away the DIR.old that a running record holds
    old = d + ".old"
    first = start(ctx, old)
    q = second(ctx, d)
    assert q.returncode == 1 and q.stdout == "", q
    assert q.stderr == "fntrace: '%s' is in use by another 'fntrace record' (pid %d); wait for it to " \
        "end or choose another directory with -d\n" % (old, first.pid), q.stderr
    finish(first)
    assert ctx.counts("-d", old) == want
    assert ctx.counts("-d", d) == want
    # once it has ended, the lock is free again
    p = second(ctx, d)
    assert p.returncode == 0 and p.stdout == "ready\n16\n", p
    assert ctx.counts("-d", d) == want and ctx.counts("-d", old) == want
