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

    def once(p, what):
        out, err = p.communicate(timeout=60)
        assert out == "graceful shutdown\n", (what, out, err)
        assert p.returncode == 0, (what, p.returncode, err)

    # timeout sends SIGTERM to record, then to its whole process group
    p = subprocess.run(["timeout", "0.3"] + rec(), capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.stdout == "graceful shutdown\n" and p.returncode == 124, ("timeout", p.stdout, p.returncode, p.stderr)
    # a program that left record's group: timeout's group kill reaches it
    # only through record (the witness, in record's group, got it too)
    p = subprocess.run(["timeout", "0.3"] + rec("newgroup"), capture_output=True, text=True, cwd=ctx.work,
                       timeout=60)
    assert p.stdout == "graceful shutdown\n" and p.returncode == 124, ("newgroup", p.stdout, p.returncode, p.stderr)
    # the program's own kill(0, SIGTERM), in a session of its own
    p = subprocess.run(["setsid", "-w"] + rec("self"), capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.stdout == "graceful shutdown\n" and p.returncode == 0, ("kill(0)", p.stdout, p.returncode, p.stderr)
    # a group kill from outside the group, as a shell's SIGHUP to its jobs
    for sig in (signal.SIGTERM, signal.SIGHUP):
        p = subprocess.Popen(rec(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ctx.work,
                             start_new_session=True)
        time.sleep(0.5)
        os.killpg(p.pid, sig)
        once(p, ("killpg", sig))
    # a signal sent to record alone is passed on, once: from outside its
    # group and from inside it (this process, as a script's `kill $!`)
    for new_session in (True, False):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            p = subprocess.Popen(rec(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ctx.work,
                                 start_new_session=new_session)
            time.sleep(0.5)
            os.kill(p.pid, sig)
            once(p, ("kill record", new_session, sig))
    # one sender's two copies (timeout signals record, then its group; on a
    # loaded machine the second lands while record handles the first): once
    p = subprocess.Popen(rec("newgroup"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ctx.work,
                         start_new_session=True)
    time.sleep(0.5)
    os.kill(p.pid, signal.SIGTERM)
    time.sleep(0.02)
    os.kill(p.pid, signal.SIGTERM)
    once(p, "two copies from one sender")
    # record leaves no process of its own behind
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = open("/proc/%s/comm" % pid).read().strip()
            cmd = open("/proc/%s/cmdline" % pid).read()
        except OSError:
            continue
        assert not (comm == "fntrace-witness" and ctx.work in cmd), ("left behind", pid, cmd)
