"""A program that disables the TSC (prctl PR_SET_TSC) runs to its end under
fntrace, with the default clock and with --clock monotonic; the trace has
every call, and the durations of the spins after the switch agree with the
program's own measurements (same clock: the clock_gettime system call).
A thread that enters seccomp strict mode stops recording: its 1000 later
calls (2000 events) are counted as lost, by name, in info; the process
goes on.  Also run as no-tsc-fentry (-pg -mfentry, at -O0 so that no call
is inlined away): there the trampolines' assembly fast path must leave the
cycle counter alone once the program has taken it away, and a call the
strict thread makes loses only its entry (its return was never swapped).
"""
import os
import re

SPIN = re.compile(r"^\s*(\d+\.\d{3}) (us|ms| s) \[\s*\d+\] \|   spin\(\);$", re.M)
UNIT = {"us": 1e3, "ms": 1e6, " s": 1e9}


def spins(ctx, d, out):
    own = [(int(a), int(b)) for a, b in re.findall(r"^spin (\d+) (\d+)$", out, re.M)]
    rep = ctx.run("replay", "-d", d, check=True).stdout
    traced = [float(v) * UNIT[u] for v, u in SPIN.findall(rep)]
    assert len(own) == 2 and len(traced) == 2, (own, rep)
    for (inner, outer), t in zip(own, traced):
        # the trace's call holds what the spin measured inside (its two
        # clock reads and the hooks besides, where a loaded machine may
        # preempt the program), and lies within what main measured around
        # the call
        assert inner - 1000 <= t <= outer * 1.002 + 200000, (own, traced)
    return rep


def check(ctx):
    lost = 1000 if ctx.case.endswith("-fentry") else 2000
    out = ctx.record.stdout
    assert out.startswith("tsc off: 109\n"), out
    rep = spins(ctx, ctx.data, out)
    assert len(re.findall(r"\|   work\(\);$", rep, re.M)) == 13, rep

    d = ctx.data + ".mono"
    p = ctx.run("record", "-d", d, "--clock", "monotonic", "--", os.path.join(ctx.work, "prog"), "tsc",
                data=False)
    assert p.returncode == 0 and p.stdout.startswith("tsc off: 109\n"), (p.returncode, p.stdout, p.stderr)
    rep = spins(ctx, d, p.stdout)
    assert len(re.findall(r"\|   work\(\);$", rep, re.M)) == 13, rep
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "clock: CLOCK_MONOTONIC" in info and "\nlost: 0\n" in info, info

    d = ctx.data + ".strict"
    p = ctx.run("record", "-d", d, "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0 and p.stdout == "strict thread said 73\n", (p.returncode, p.stdout, p.stderr)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "\nlost: %d\n" % lost in info, info
    assert "\n  lost: %d in threads that entered seccomp strict mode (no clock, no memory: " \
           "they stopped recording)\n" % lost in info, info
    rep = ctx.run("replay", "-d", d, check=True).stdout
    assert re.search(r"\| strict_thread\(\) \{\n(.*\|   work\(\);\n){3}.*\| \} /\* strict_thread \(no return",
                     rep), rep
