"""--snapshot-signal refuses the signals that cannot work (fault signals come
straight back from the faulting instruction: a snapshot each time, forever;
KILL and STOP cannot be caught), by name and by number, with exit 2 and a
first line naming the option; the runtime ignores such a signal in
FNTRACE_SNAPSHOT_SIGNAL, so a faulting program dies of its fault as without
fntrace.  `live --patch-signal USR1` takes USR1 as the signal, not `--`."""
import os
import re
import signal
import subprocess


def check(ctx):
    problems = []
    prog = os.path.join(ctx.work, "prog")
    d = ctx.data + ".x"
    for sig in ("SIGSEGV", "segv", "11", "SIGBUS", "7", "ILL", "4", "SIGFPE", "8", "SIGKILL", "9",
                "SIGSTOP", "19"):
        p = ctx.run("record", "-d", d, "--snapshot-signal", sig, "--", prog, data=False)
        line = p.stderr.splitlines()[0] if p.stderr else ""
        if p.returncode != 2 or not line.startswith("fntrace: option '--snapshot-signal' cannot use %s (" % sig) \
                or "SIGUSR2" not in line or p.stdout:
            problems.append("--snapshot-signal %s: exit %d, %r" % (sig, p.returncode, p.stderr[:300]))
    if os.path.exists(d):
        problems.append("a refused --snapshot-signal still recorded")
        subprocess.run(["rm", "-rf", d])
    # a good signal still works: one snapshot for one SIGUSR2
    p = ctx.run("record", "-d", d, "--snapshot-signal", "usr2", "--", prog, "usr2", data=False)
    assert p.returncode == 0 and p.stdout == "sum 35\n", (p.returncode, p.stdout, p.stderr)
    assert sorted(x for x in os.listdir(d) if x.startswith("snapshot-")) == ["snapshot-signal-1"], os.listdir(d)

    # the runtime on its own (FNTRACE_SNAPSHOT_SIGNAL set by hand): SIGSEGV
    # is not taken, the program dies of its fault once
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.so")
    for n in ("11", "7", "4", "8"):
        d2 = os.path.join(ctx.work, "raw-%s.data" % n)
        env = dict(os.environ, LD_PRELOAD=lib, FNTRACE_DIR=d2, FNTRACE_SNAPSHOT_SIGNAL=n)
        try:
            p = subprocess.run([prog, "segv"], env=env, capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            problems.append("FNTRACE_SNAPSHOT_SIGNAL=%s: the faulting program never ended" % n)
            continue
        if p.returncode != -signal.SIGSEGV:
            problems.append("FNTRACE_SNAPSHOT_SIGNAL=%s: status %d (want death by SIGSEGV)" % (n, p.returncode))
        snaps = [x for x in os.listdir(d2) if x.startswith("snapshot-")] if os.path.isdir(d2) else []
        if snaps:
            problems.append("FNTRACE_SNAPSHOT_SIGNAL=%s: snapshots %s" % (n, snaps[:3]))

    # live: --patch-signal takes its value
    d3 = ctx.data + ".live"
    p = ctx.run("live", "-d", d3, "--patch-signal", "USR1", "--", prog, data=False)
    if p.returncode != 0 or "sum 35" not in p.stdout or len(re.findall(r"\| +work\(\);", p.stdout)) != 5:
        problems.append("live --patch-signal USR1: exit %d, %r %r" % (p.returncode, p.stdout[-400:], p.stderr[:300]))
    p = ctx.run("live", "-d", d3 + "2", "--patch-signal", "--", prog, data=False)
    if p.returncode != 2 or "'--patch-signal'" not in p.stderr.splitlines()[0]:
        problems.append("live --patch-signal --: exit %d, %r" % (p.returncode, p.stderr[:300]))
    assert not problems, "\n".join(problems)
