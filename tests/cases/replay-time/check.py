import os
import re
import time


def verify(ctx, d, stdout):
    t0, t1 = (int(x) for x in stdout.split())
    out = ctx.run("replay", "--time", "-d", d, check=True).stdout.splitlines()
    rows = []
    for l in out[1:]:
        m = re.match(r"^(\d\d):(\d\d):(\d\d)\.(\d{9}) ", l)
        assert m, l
        h, mi, s, ns = (int(g) for g in m.groups())
        rows.append((h * 3600 + mi * 60 + s) * 10**9 + ns)
        assert l[m.end():].lstrip().endswith(("{", ";", "*/")), l
    assert len(rows) == 5, out          # main {, leaf;, nap;, leaf;, }
    assert rows == sorted(rows), out
    # local time of day of the program's own clock readings around the calls
    lt = time.localtime(t0 // 10**9)
    day0 = t0 - ((lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec) * 10**9 + t0 % 10**9)
    first_leaf = rows[1] + day0
    last_leaf = rows[3] + day0
    # leaf(1) ran after t0 and leaf(2) before t1 (50 us of slack for the
    # calibration); nap() took its 20 ms
    assert t0 - 50000 <= first_leaf <= t1 + 50000, (t0, first_leaf, t1)
    assert t0 - 50000 <= last_leaf <= t1 + 50000, (t0, last_leaf, t1)
    assert last_leaf - first_leaf >= 20 * 10**6, (first_leaf, last_leaf)


def check(ctx):
    verify(ctx, ctx.data, ctx.record.stdout)
    # prog-late: the runtime's first wall-clock read comes 5 ms late
    # (late-realtime.c); a sample that read CLOCK_REALTIME after its window
    # put every wall time of the trace 5 ms late.  Also with the clock that
    # is not the TSC (one window was read, without a retry)
    for clock in (None, "monotonic"):
        env = {k: v for k, v in os.environ.items() if k != "FNTRACE_CLOCK"}
        if clock:
            env["FNTRACE_CLOCK"] = clock
        d, rec = ctx.record_build("prog-late", record_args=["-q"], env=env)
        verify(ctx, d, rec.stdout)
