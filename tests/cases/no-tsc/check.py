"""A program that disables the TSC (prctl PR_SET_TSC, or the same through
syscall(SYS_prctl)) runs to its end under fntrace, with the default clock and
with --clock monotonic; the trace has every call, and the durations of the
spins after the switch agree with the program's own measurements (same
clock: the clock_gettime system call).  Before the syscall() wrapper saw
SYS_prctl, the raw call killed the program with SIGSEGV in both clock modes.
Two threads that enter seccomp strict mode (through prctl, syscall(SYS_prctl)
or syscall(SYS_seccomp)), one of them before any traced call, stop recording:
their 2 x 2 x 1042 later calls (8336 events; deep recursion among them, which
leaves the stack pointers the hooks saw) are counted as lost, by name, in
info; the process goes on.  Before: the raw calls were not seen (SIGSEGV),
and a hook's system call (gettid for a new stack pointer, mmap for a -pg
shadow stack) got the thread killed, and the program hung waiting for it.
In a patchable build, record --patch-signal USR1 switches the pads on while
both threads are in strict mode: the signal is taken by another thread, and
the switch stops the strict threads without a system call of theirs.  Also
run as no-tsc-fentry (-pg -mfentry, at -O0 so that no call is inlined away):
there the trampolines' assembly fast path must leave the cycle counter alone
once the program has taken it away, and a call the strict threads make
counts 2 events (its return is never swapped).
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
    out = ctx.record.stdout
    assert out.startswith("tsc off: 109\n"), out
    rep = spins(ctx, ctx.data, out)
    assert len(re.findall(r"\|   work\(\);$", rep, re.M)) == 13, rep

    for how in ("tsc", "tsc-raw"):
        for clock in (["--clock", "monotonic"], []) if how == "tsc" else ([], ["--clock", "monotonic"]):
            if how == "tsc" and not clock:
                continue        # (the harness's own run, above)
            d = ctx.data + ".%s%s" % (how, "".join(clock))
            p = ctx.run("record", "-d", d, *clock, "--", os.path.join(ctx.work, "prog"), how, data=False)
            assert p.returncode == 0 and p.stdout.startswith("tsc off: 109\n"), (how, clock, p.returncode,
                                                                                 p.stdout, p.stderr)
            rep = spins(ctx, d, p.stdout)
            assert len(re.findall(r"\|   work\(\);$", rep, re.M)) == 13, rep
            info = ctx.run("info", "-d", d, check=True).stdout
            assert "\nlost: 0\n" in info, info
            if clock:
                assert "\nclock: CLOCK_MONOTONIC (chosen with --clock monotonic)\n" in info, info

    for how in ("prctl", "sys-prctl", "seccomp"):
        d = ctx.data + ".strict-" + how
        p = ctx.run("record", "-d", d, "--", os.path.join(ctx.work, "prog"), "strict", how, data=False)
        assert p.returncode == 0 and p.stdout == "strict threads said 482\n", (how, p.returncode, p.stdout,
                                                                               p.stderr)
        strict_lost(ctx, d, 8336)
        rep = ctx.run("replay", "-d", d, check=True).stdout
        assert re.search(r"\| strict_thread\(\) \{\n(.*\|   work\(\);\n){3}.*\| \} /\* strict_thread \(no return",
                         rep), rep

    if ctx.case.endswith("-fentry"):
        return
    # the pads switched on while both threads are in strict mode: only their
    # second round is traced, and lost
    d = ctx.data + ".patch"
    p = ctx.run("record", "-d", d, "--patch-signal", "USR1", "--", os.path.join(ctx.work, "prog-patch"), "strict",
                "prctl", "signal", data=False)
    assert p.returncode == 0 and p.stdout == "strict threads said 482\n", (p.returncode, p.stdout, p.stderr)
    strict_lost(ctx, d, 4168)


def strict_lost(ctx, d, lost):
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "\nlost: %d\n" % lost in info, info
    assert "\n  lost: %d in threads that entered seccomp strict mode (no clock, no memory: " \
           "they stopped recording)\n" % lost in info, info
