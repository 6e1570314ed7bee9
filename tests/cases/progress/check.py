"""Long work shows its progress on a terminal: export, report and graph
print "fntrace: WHAT N%" on stderr (after a second; the test sets the delay
to 1 ms), then erase the line before their own last words; through a pipe
nothing of it is printed."""
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from ttyrun import on_tty


def check(ctx):
    env = dict(os.environ, FNTRACE_PROGRESS_DELAY_MS="1")
    env.pop("LD_PRELOAD", None)
    out = os.path.join(ctx.work, "t.json")
    rc, shown = on_tty([ctx.fntrace, "export", "-d", ctx.data, "-f", "chrome", "-o", out], env, raw=True)
    assert rc == 0, shown
    steps = re.findall(r"\rfntrace: exporting '%s' (\d+)%%" % re.escape(out), shown)
    assert steps and all(0 <= int(s) <= 100 for s in steps), shown[:500]
    assert [int(s) for s in steps] == sorted(int(s) for s in steps), steps
    assert shown.endswith("\r\x1b[Kfntrace: wrote '%s' (chrome, %.1f MB)\r\n" % (out, os.path.getsize(out) / 1e6)), \
        shown[-300:]

    # an export that will be large counts its events first, with its own progress, then warns
    rc, shown = on_tty([ctx.fntrace, "export", "-d", ctx.data, "-f", "chrome", "-o", out],
                       dict(env, FNTRACE_EXPORT_WARN="1"), raw=True)
    assert rc == 0, shown
    counting = re.findall(r"\rfntrace: counting the events for '%s' (\d+)%%" % re.escape(out), shown)
    assert counting and all(0 <= int(s) <= 100 for s in counting), shown[:500]
    warned = shown.index("\r\x1b[Kfntrace: warning: '%s' will be about" % out)
    assert shown.rindex("counting the events") < warned < shown.index("exporting '%s'" % out), shown[:1000]

    rc, shown = on_tty([ctx.fntrace, "report", "-d", ctx.data, "--no-pager", "--color=never"], env, raw=True)
    assert rc == 0 and re.search(r"\rfntrace: reading the trace \d+%", shown) and "\r\x1b[K" in shown, shown[:300]
    table = shown.split("\r\x1b[K", 1)[1]
    assert re.search(r" 200000 .* step\r?$", table, re.M) and "fntrace:" not in table, table

    # not a terminal: no progress, whatever the delay
    p = subprocess.run([ctx.fntrace, "export", "-d", ctx.data, "-f", "chrome", "-o", out], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0 and p.stderr == "fntrace: wrote '%s' (chrome, %.1f MB)\n" % (
        out, os.path.getsize(out) / 1e6), p.stderr
