"""fntrace record under `strace -f` (or any ptrace or seccomp supervisor,
where each system call stops the process for tens of microseconds).

The runtime asks for the thread's id (gettid) at an event that comes a
long pause after the thread's last one: a clone made by hand may have
started a child on the thread's memory.  The pause was measured from the
last event's time, taken before that same check, so when the check itself
took longer than the bound every event found a long pause and made a
system call: 2 per call (80,000 here), the program about 100 times slower
under strace, and every call's time in the trace that much too long.  Now
the pause that tells a clone counts from the end of the last check: a
handful of gettid calls in all, and the calls take as long as without
strace.  Both -finstrument-functions and -pg -mfentry builds."""
import os
import re
import shutil
import subprocess


def gettid_calls(summary):
    m = re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?gettid$", summary, re.M)
    return int(m.group(1)) if m else 0


def check(ctx):
    strace = shutil.which("strace")
    if not strace:
        raise Skip("strace is not installed (apt-get install strace)")
    for prog in ("prog", "prog-fentry"):
        exe = os.path.join(ctx.builddir, prog)
        d = os.path.join(ctx.work, prog + "-strace.data")
        out = os.path.join(ctx.work, prog + "-strace.txt")
        # (an ASan build of fntrace: LeakSanitizer gives up under ptrace,
        # and says so with exit status 1)
        env = dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                                    "detect_leaks=0"])))
        p = subprocess.run([strace, "-f", "-c", "-o", out, ctx.fntrace, "record", "-q", "-d", d, "--", exe],
                           capture_output=True, text=True, cwd=ctx.work, timeout=300, env=env)
        assert p.returncode == 0 and p.stdout.startswith("acc "), p
        summary = open(out).read()
        assert re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+\d+\s+(?:\d+\s+)?(wait4|rt_sigtimedwait)$", summary,
                         re.M), summary                  # (the summary was parsed)
        n = gettid_calls(summary)
        assert n < 500, "%s: %d gettid calls under strace\n%s" % (prog, n, summary)
        rows = {r["function"]: r for r in ctx.csv("-d", d)}
        # gcc -pg may make one of outer's calls a jump: count what it made
        assert rows["outer"]["calls"] == "10000", rows
        assert rows["work"]["calls"] in ("20000", "10000"), rows
        if prog == "prog":
            assert rows["work"]["calls"] == "20000", rows
        # each call of work takes well under a microsecond; with a system
        # call per event (20-50 us under strace) they took about 1 s in all
        assert int(rows["work"]["total_ns"]) < 100e6, rows["work"]
