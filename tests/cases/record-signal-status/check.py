"""record dies of the signal its program died of, once the trace is written,
so that a shell sees what it would have seen without record (a Ctrl-C'd
loop stops).  Before: record exited 128+N."""
import os
import resource
import signal
import subprocess


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL):
        d = os.path.join(ctx.work, "sig%d.data" % sig)
        p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", prog, str(int(sig))], capture_output=True,
                           text=True, cwd=ctx.work, timeout=60)
        assert p.returncode == -sig, (sig, p.returncode, p.stderr)
        assert "was killed by signal %d " % sig in p.stderr, p.stderr
        # the whole trace was written before: the call and the symbol tables
        r = ctx.run("replay", "-d", d, data=False, check=True)
        assert "work();" in r.stdout, r.stdout
        assert os.path.isdir(os.path.join(d, "symtab")), os.listdir(d)
    # an exit status is passed on as it is
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", os.path.join(ctx.work, "exit.data"), "--", prog,
                        "exit", "3"], capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 3, (p.returncode, p.stderr)

    # record dumps no core of its own, whatever its core limit: the raw
    # wait status of a record whose program died of SIGSEGV
    def unlimited():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    d = os.path.join(ctx.work, "core.data")
    sub = os.path.join(ctx.work, "coredir")
    os.makedirs(sub, exist_ok=True)
    p = subprocess.Popen([ctx.fntrace, "record", "-q", "-d", d, "--", prog, str(int(signal.SIGSEGV))],
                         cwd=sub, preexec_fn=unlimited, stderr=subprocess.DEVNULL)
    _, status, _ = os.wait4(p.pid, 0)
    p.returncode = 0
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV, status
    assert not os.WCOREDUMP(status), "record dumped a core"
