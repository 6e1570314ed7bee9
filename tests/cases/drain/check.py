"""The drained ring (doc/perf-floor.md): under `fntrace record` the program
writes its event chunks into a ring that record copies into the trace file.
Every event arrives, whatever happens to the program:
- 4 threads of 3,000,000 calls (24 M events, 3 times the ring): exact counts,
  the same as with --no-drain, and the ring was mapped in the program (not
  with --no-drain);
- SIGKILL after 500,000 calls: all of them are in the trace;
- exec: the first image's calls and the second's;
- fnt_snapshot() after record copied part of the slot into the file: the
  snapshot has every call (it had the file's older copy);
- a process that outlives the one record started (sh -c 'prog &') copies
  its slots itself when record is gone;
- the program started by a launcher that exits leaving it a zombie
  (record its subreaper here, so that nothing reaps it): record cannot
  tell it from a process that lives on, and copies what it wrote, all of
  it (the calls since the last 50 ms were lost, without a count);
- 100 threads, each with a chunk open, more than the ring's 64 slots: the
  threads that find every slot held map their chunk from the file at once
  (they waited 2 s for record, which had nothing to free, and then the
  whole process gave the ring up), and record sleeps while nothing can
  fill (it polled every 50 us while they lived);
- one thread writing twice the ring: it reuses the lowest free slots, and
  most of the ring is never touched;
- record killed with SIGKILL while 8 threads write four times the ring:
  the threads copy the slots into the file themselves, every call of them,
  whether record's parent reaps it at once or leaves it a zombie until the
  program ends.  Two threads could copy the same slot at once (one zeroing
  it under the other's copy: chunks missing from the file, 2 to 7 of 8
  runs), and a zombie record was taken for a stuck one, whose slots nobody
  copied (about 60 chunks missing, without a count);
- record stopped (SIGSTOP) at the same point: the threads give up on it
  after 2 s and copy their slots themselves, the main thread's last one
  too at its exit; then record is killed, never resumed.  The last slot
  was left for record to copy, which it never did."""
import os
import re
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from procwait import wait_gone


def PROG(ctx):
    return os.path.join(ctx.builddir, "prog")


def counts(ctx, d):
    return {r["function"]: int(r["calls"]) for r in ctx.csv("-d", d)}


def check(ctx):
    assert ctx.record.stdout == "ring 1\n", ctx.record.stdout
    got = counts(ctx, ctx.data)
    assert got["work"] == 12000000 and got["thread_main"] == 4, got

    nd = os.path.join(ctx.work, "nodrain.data")
    p = ctx.run("record", "-q", "--no-drain", "-d", nd, "--", PROG(ctx), "threads", "3000000", data=False, check=True)
    assert p.stdout == "ring 0\n", p.stdout
    assert counts(ctx, nd) == got

    k = os.path.join(ctx.work, "kill.data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", k, "--", PROG(ctx), "kill", "500000"],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == -9 and p.stdout == "ring 1\n", p
    got = counts(ctx, k)
    assert got["work"] == 500000 and got["thread_main"] == 1, got

    e = os.path.join(ctx.work, "exec.data")
    ctx.run("record", "-q", "-d", e, "--", PROG(ctx), "exec", "700000", data=False, check=True)
    got = counts(ctx, e)
    assert got["work"] == 700000 + 4 * 1000 and got["thread_main"] == 1 + 4, got

    # a snapshot holds the slot as it is, not the older copy record made of it
    sn = os.path.join(ctx.work, "snap.data")
    ctx.run("record", "-q", "-d", sn, "--", PROG(ctx), "snap", "20000", data=False, check=True)
    got = counts(ctx, os.path.join(sn, "snapshot-mid"))
    assert got["work"] == 40000 and got["thread_main"] == 2, got

    b = os.path.join(ctx.work, "bg.data")
    pidfile = os.path.join(ctx.work, "bg.pid")
    # the shell exits once the program has made its first calls
    ctx.run("record", "-q", "-d", b, "--", "/bin/sh", "-c",
            "'%s' bg 900000 '%s' & while [ ! -s '%s' ]; do sleep 0.01; done" % (PROG(ctx), pidfile, pidfile),
            data=False, check=True)
    pid = int(open(pidfile).read())
    assert wait_gone(pid), "the background program did not end"
    got = counts(ctx, b)
    assert got["work"] == 900000 + 10 and got["thread_main"] == 1, got

    m = os.path.join(ctx.work, "many.data")
    p = ctx.run("record", "-q", "-d", m, "--", PROG(ctx), "many", "100", "1000", data=False, check=True,
                env=dict(os.environ, FNTRACE_DRAIN_DEBUG="1"))
    got = counts(ctx, m)
    assert got["work"] == 1000 and got["thread_idle"] == 100, got
    st = re.search(r"writers waited (\d+) times, given up (\d+), (\d+) polls", p.stderr)
    assert st, p.stderr
    # a second of idle threads: record sleeps 8 ms at most between polls
    # (125 a second); it polled every 50 us (20,000)
    assert st.group(2) == "0" and int(st.group(3)) < 1500, p.stderr

    # one thread, 16 M events, twice the ring: record keeps up, and the
    # writer takes the lowest free slot, so that the same few slots come
    # round again.  Taken in turn, all 64 slots were touched (16 MiB, each
    # slot's first round paying its page faults); now 7 or 8, also beside
    # three CPU hogs.  Most of the ring only when the writer had to wait.
    lo = os.path.join(ctx.work, "low.data")
    p = ctx.run("record", "-q", "-d", lo, "--", PROG(ctx), "tail", "4000000", data=False, check=True,
                env=dict(os.environ, FNTRACE_DRAIN_DEBUG="1"))
    got = counts(ctx, lo)
    assert got["work"] == 8000000 and got["thread_main"] == 2, got
    st = re.search(r"(\d+) chunks copied, writers waited (\d+) times.* (\d+) of (\d+) KiB of the ring touched",
                   p.stderr)
    assert st and int(st.group(1)) > 64 and int(st.group(4)) == 4 + 64 * 256, p.stderr
    assert int(st.group(3)) <= 4 + 48 * 256 or int(st.group(2)) > 0, p.stderr

    # record a subreaper: the zombie the launcher leaves stays one
    subreaper = "import ctypes, os, sys; ctypes.CDLL(None).prctl(36, 1, 0, 0, 0); os.execv(sys.argv[1], sys.argv[1:])"
    for i in range(3):
        z = os.path.join(ctx.work, "zombie%d.data" % i)
        p = subprocess.run([sys.executable, "-c", subreaper, ctx.fntrace, "record", "-q", "-d", z, "--",
                            os.path.join(ctx.builddir, "launch"), PROG(ctx), "tail", "300000"],
                           capture_output=True, text=True, cwd=ctx.work, timeout=120)
        assert p.returncode == 0, p
        got = counts(ctx, z)
        assert got["work"] == 600000 and got["thread_main"] == 2, (i, got)

    # record killed a quarter of the way; its parent (here) reaps it at
    # once, or only once the program has ended (it holds record's output)
    n = 2000000
    for i, reaped in enumerate((True, True, True, False)):
        r = os.path.join(ctx.work, "rkill%d.data" % i)
        pidfile = os.path.join(ctx.work, "rkill%d.pid" % i)
        out = subprocess.DEVNULL if reaped else subprocess.PIPE
        p = subprocess.Popen([ctx.fntrace, "record", "-q", "-d", r, "--", PROG(ctx), "rkill", str(n), pidfile],
                             stdout=out, stderr=out, cwd=ctx.work)
        if reaped:
            p.wait(timeout=120)
        else:
            p.communicate(timeout=120)
        assert p.returncode == -9, (i, p.returncode)
        assert wait_gone(int(open(pidfile).read())), "the program did not end"
        got = counts(ctx, r)
        assert got["work"] == 8 * n + 1 and got["thread_rkill"] == 8, (i, reaped, got)

    st = os.path.join(ctx.work, "rstop.data")
    pidfile = os.path.join(ctx.work, "rstop.pid")
    p = subprocess.Popen([ctx.fntrace, "record", "-q", "-d", st, "--", PROG(ctx), "rkill", str(n), pidfile, "stop"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ctx.work)
    try:
        while not os.path.exists(pidfile) or not open(pidfile).read().endswith("\n"):
            assert p.poll() is None, p.returncode
            time.sleep(0.02)
        assert wait_gone(int(open(pidfile).read())), "the program did not end"
    finally:
        p.kill()
        p.wait(timeout=60)
    got = counts(ctx, st)
    assert got["work"] == 8 * n + 1 and got["thread_rkill"] == 8, got
