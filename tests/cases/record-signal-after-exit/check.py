"""Once the program has ended, `fntrace record` is stoppable again: it
ignores SIGINT and SIGQUIT (the terminal sends them to the program too) and
forwards SIGTERM and SIGHUP to the program only while the program runs.
Afterwards they ignored Ctrl-C for the whole of the walks that follow
(symbol tables, the summary, --report: minutes on a big trace), and
forwarded SIGTERM to the pid of the reaped program, which may be another
process's by then.

record --report writes its report into a pipe of 4 KiB that nobody reads,
so it is still running, stuck in the report, after the program ended; then
it gets SIGINT, or SIGTERM, and must die of it, with the trace complete."""
import fcntl
import os
import select
import signal
import subprocess
import sys

F_SETPIPE_SZ = 1031
DEFAULTS = ("import os, signal, sys\n"
            "for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):\n"
            "    signal.signal(s, signal.SIG_DFL)\n"
            "os.execv(sys.argv[1], sys.argv[1:])\n")


def check(ctx):
    assert ctx.counts()["main"] == 1 and len([k for k in ctx.counts() if k.startswith("fn_")]) == 300
    for sig in (signal.SIGINT, signal.SIGTERM):
        d = os.path.join(ctx.work, "sig%d.data" % sig)
        r, w = os.pipe()
        fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
        # record restores what it was started with: start it with the
        # default dispositions (a suite run in the background, as by nohup
        # or a CI runner, has SIGINT and SIGQUIT ignored)
        p = subprocess.Popen([sys.executable, "-c", DEFAULTS, ctx.fntrace, "record", "--report", "-d", d, "--",
                              os.path.join(ctx.builddir, "prog")],
                             stdout=w, stderr=subprocess.PIPE, text=True, cwd=ctx.work)
        os.close(w)
        try:
            # the program's line, then the report: the program has ended
            # (record writes the report after the walks, and the pipe fills)
            seen = b""
            while b"Function" not in seen:
                ready, _, _ = select.select([r], [], [], 60)
                assert ready, ("no report within 60 s", seen)
                chunk = os.read(r, 1)
                assert chunk, ("record closed its output", seen)
                seen += chunk
            p.send_signal(sig)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                raise AssertionError("record ignored signal %d after the program ended" % sig)
            assert p.returncode == -sig, (sig, p.returncode, p.stderr.read())
        finally:
            if p.poll() is None:
                p.kill()
            p.wait()
            os.close(r)
            p.stderr.close()
        # the trace was complete before the walks began
        got = ctx.counts("-d", d)
        assert got["main"] == 1 and sum(1 for k in got if k.startswith("fn_")) == 300, got
