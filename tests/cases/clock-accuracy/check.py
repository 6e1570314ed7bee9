"""Durations agree with CLOCK_MONOTONIC to 0.01 % from the first event, in
the trace (report's exact nanoseconds) and in what `live` prints while the
program runs (early lines use the calibration known then).

The program brackets each call: `inner` is what it measured inside the
call, `outer` around it, so the call's true duration D is in [inner,
outer] whatever the scheduler did (a preemption only widens the bracket).
The check is that inner * (1 - 1e-4) <= traced D <= outer * (1 + 1e-4),
plus the rounding of the printed value; it cannot fail because of load,
only because of the clock conversion."""
import os
import re
import subprocess

TOL = 1e-4
UNIT = {"us": 1e3, "ms": 1e6, " s": 1e9}
LINE = re.compile(r"^\s*(\d+\.\d{3}) (us|ms| s) \[\s*\d+\] \| +(interval_\w+)\(\);$", re.M)


def brackets(stdout):
    got = {}
    for line in stdout.splitlines():
        m = re.match(r"^(interval_\w+) (\d+) (\d+)$", line)
        if m:
            got[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    assert len(got) == 5, stdout
    return got


def within(name, d, br, rounding, where):
    inner, outer = br[name]
    assert inner * (1 - TOL) - rounding <= d <= outer * (1 + TOL) + rounding, \
        "%s: %s says %.0f ns, the program measured %d..%d ns (off by %.4f %%)" % (
            where, name, d, inner, outer, 100.0 * (d - min(max(d, inner), outer)) / inner)


def check(ctx):
    br = brackets(ctx.record.stdout)
    rows = ctx.csv()
    seen = 0
    for r in rows:
        if r["function"].startswith("interval_"):
            assert r["calls"] == "1", r
            within(r["function"], int(r["total_ns"]), br, 2, "record")
            seen += 1
    assert seen == 5, rows

    d = os.path.join(ctx.work, "live.data")
    p = subprocess.run([ctx.fntrace, "live", "-d", d, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    br = brackets(p.stdout)
    lines = LINE.findall(p.stdout)
    assert len(lines) == 5, p.stdout
    for v, unit, name in lines:
        # printed to 3 decimals: +-0.5 of the last digit
        within(name, float(v) * UNIT[unit], br, 0.5e-3 * UNIT[unit], "live")
