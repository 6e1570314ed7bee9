"""SIGTERM and SIGHUP reach the program once, whether they were sent to
record alone (passed on) or to the whole process group (not passed on
again).  Before: a group kill reached the program twice, and its handler
took the second one for "stop now" (forced exit)."""
import os
import signal
import subprocess
import time


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    n = [0]

    def rec(*args):
        n[0] += 1
        return [ctx.fntrace, "record", "-q", "-d", os.path.join(ctx.work, "t%d.data" % n[0]), "--", prog, *args]

    ready = os.path.join(ctx.work, "ready")

    def started(p):
        """once the program has its handlers: a signal before that killed
        it (record and the runtime start slowly on a loaded machine)"""
        for _ in range(3000):
            if os.path.exists(ready) or p.poll() is not None:
                break
            time.sleep(0.01)
        if os.path.exists(ready):
            os.unlink(ready)

    def popen(new_session, *args):
        if os.path.exists(ready):
            os.unlink(ready)
        p = subprocess.Popen(rec(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ctx.work,
                             start_new_session=new_session)
        started(p)
        return p

    def once(p, what):
        out, err = p.communicate(timeout=60)
        assert out == "graceful shutdown\n", (what, out, err)
        assert p.returncode == 0, (what, p.returncode, err)

    # timeout sends SIGTERM to record, then to its whole process group (the
    # program waits 3 s for it; it has its handlers within 0.05 s under load)
    p = subprocess.run(["timeout", "1.5"] + rec(), capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.stdout == "graceful shutdown\n" and p.returncode == 124, ("timeout", p.stdout, p.returncode, p.stderr)
    # a program that left record's group: timeout's group kill reaches it
    # only through record (the witness, in record's group, got it too)
    p = subprocess.run(["timeout", "1.5"] + rec("newgroup"), capture_output=True, text=True, cwd=ctx.work,
                       timeout=60)
    assert p.stdout == "graceful shutdown\n" and p.returncode == 124, ("newgroup", p.stdout, p.returncode, p.stderr)
    # the program's own kill(0, SIGTERM), in a session of its own
    p = subprocess.run(["setsid", "-w"] + rec("self"), capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.stdout == "graceful shutdown\n" and p.returncode == 0, ("kill(0)", p.stdout, p.returncode, p.stderr)
    # a group kill from outside the group, as a shell's SIGHUP to its jobs
    for sig in (signal.SIGTERM, signal.SIGHUP):
        p = popen(True)
        os.killpg(p.pid, sig)
        once(p, ("killpg", sig))
    # a signal sent to record alone is passed on, once: from outside its
    # group and from inside it (this process, as a script's `kill $!`)
    for new_session in (True, False):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            p = popen(new_session)
            os.kill(p.pid, sig)
            once(p, ("kill record", new_session, sig))
    # one sender's two copies (timeout signals record, then its group; on a
    # loaded machine the second lands while record handles the first): once
    p = popen(True, "newgroup")
    os.kill(p.pid, signal.SIGTERM)
    time.sleep(0.02)
    os.kill(p.pid, signal.SIGTERM)
    once(p, "two copies from one sender")
    # a signal as the program starts: record passes it on (or, sent by the
    # program, not back) from the start.  Its handlers came only once the
    # program ran: under load, 4 runs in 30 of this one ended record
    # (status -15), the program left running on its own
    for i in range(20):
        p = subprocess.run(rec("parent"), capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert p.stdout == "record signalled\n" and p.returncode == 0, ("parent", i, p.stdout, p.returncode, p.stderr)
    # record leaves no process of its own behind
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = open("/proc/%s/comm" % pid).read().strip()
            cmd = open("/proc/%s/cmdline" % pid).read()
        except OSError:
            continue
        assert not (comm == "fntrace-witness" and ctx.work in cmd), ("left behind", pid, cmd)
