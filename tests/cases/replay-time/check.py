import os
import re
import subprocess
import time

# the first CLOCK_REALTIME read of the process (the runtime's clock sample
# at its start) comes 5 ms late, as when the scheduler takes the CPU away
# right there; a sample read after its window then put every wall time of
# the trace 5 ms late
SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
static int calls;
int clock_gettime(clockid_t c, struct timespec *ts)
{
	static int (*next)(clockid_t, struct timespec *);
	if (!next)
		next = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	if (c == CLOCK_REALTIME && calls++ == 0) {
		struct timespec d = { 0, 5 * 1000 * 1000 };
		nanosleep(&d, 0);
	}
	return next(c, ts);
}
"""


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
    src = os.path.join(ctx.work, "late-realtime.c")
    with open(src, "w") as f:
        f.write(SHIM)
    shim = os.path.join(ctx.work, "late-realtime.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, src, "-ldl"], check=True)
    env = dict(os.environ, LD_PRELOAD=shim)
    d, rec = ctx.record_build("prog", record_args=["-q"], env=env)
    verify(ctx, d, rec.stdout)
