import os
import re
import signal
import subprocess


def check(ctx):
    assert ctx.record.stdout == "SIGCHLD default\n", ctx.record.stdout
    assert ctx.counts() == {"main": 1, "leaf": 200000}, ctx.counts()
    for drain in ([], ["--no-drain"]):
        d = os.path.join(ctx.work, "ign%s.data" % ("-nodrain" if drain else ""))
        p = subprocess.run([ctx.fntrace, "record", "-d", d] + drain + ["--", os.path.join(ctx.work, "prog")],
                           capture_output=True, text=True, cwd=ctx.work, timeout=120,
                           preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
        # the exit status, the program's own disposition, no error, every event
        assert p.returncode == 3, (drain, p.returncode, p.stderr)
        assert p.stdout == "SIGCHLD ignored\n", (drain, p.stdout)
        assert re.search(r"^fntrace: wrote '.*': 400\.0 K events, .*, 0 lost$", p.stderr, re.M) and \
            "waitpid" not in p.stderr, (drain, p.stderr)
        assert ctx.counts("-d", d) == {"main": 1, "leaf": 200000}, (drain, ctx.counts("-d", d))
