"""Decoding memory stays bounded whatever the threads do (issue 15: at most
64 MB for any command on any trace), shown on two traces of 34 MB in 16 KiB
chunks, with every view's peak RSS under 12 MB:

- 300 threads one after another, each calling f 3,000 times with its
  arguments and return value recorded (this case's trace). The walk kept
  each thread's last chunk mapped when the thread ended, and a walk by time
  decodes every thread's first batch before it hands out any: replay took
  25 MB, report 10 MB.
- four threads calling f at once, 1.5 M times each, so that their chunks
  interleave in the file. A fault maps its neighbours too, here other
  threads' chunks, which stayed mapped after their own walk: report took
  19 MB, the chrome and perfetto exports 21 MB, growing with the trace.

The counts are checked too. The sanitizers' shadow memory makes RSS
meaningless there, so the sanitizer build checks the counts only."""
import os
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from peakrss import peak_rss_kb

VIEWS = (["report"], ["replay"], ["export", "-q", "-f", "chrome", "-o", "-"],
         ["export", "-q", "-f", "perfetto", "-o", "-"])


def check(ctx):
    assert ctx.record.stdout == str(300 * sum(3 * i + 1 for i in range(3000))) + "\n", ctx.record.stdout
    par = os.path.join(ctx.work, "par.data")
    rec = subprocess.run([ctx.fntrace, "record", "-q", "-d", par, "--chunk-size", "16K", "--",
                          os.path.join(ctx.work, "prog"), "par"], capture_output=True, text=True)
    assert rec.returncode == 0 and rec.stdout == str(4 * sum(3 * i + 1 for i in range(1500000))) + "\n", rec

    rows = {r["function"]: r for r in ctx.csv()}
    assert int(rows["f"]["calls"]) == 300 * 3000, rows["f"]
    p = ctx.run("replay", check=True)
    assert p.stdout.count("f(2999, 1) = 8998;") == 300, p.stdout[:500]
    counts = ctx.counts("-d", par)
    assert counts["f"] == 4 * 1500000, counts

    if "san" in os.path.basename(os.path.dirname(ctx.fntrace)):
        return
    for data in (ctx.data, par):
        for args in VIEWS:
            kb = peak_rss_kb(ctx, args, data)
            assert kb < 12 << 10, (os.path.basename(data), args, "peak RSS %d KB" % kb)
