import os, re, subprocess

# The CLONE_VM children run on their parent thread's TLS with their stacks
# 16 KiB and 4 KiB below the parent's: each is skipped and counted, child_fn
# and 1000 in_child calls, 2 events each, 2002 events per child.  The
# first is found by its stack pointer (out of the window, but within
# 32 KiB), the second, inside the window, by the time its first event comes
# after the parent's last (runtime.h, FNT_GAP_TICKS), the third, inside the
# window too, once its parent sleeps in waitpid.  The parent's 4000 calls
# are all there and nest as made.  The same in the -finstrument-functions,
# -pg -mfentry and -fpatchable-function-entry builds, each of which also
# prints what it prints untraced.
#
# Then the same with library calls traced (record's default): the parent's
# waitpid entry is then its last event before a child's first, and came
# too close before it for the pause to give the child away; and the
# parent's events while a child ran filled the window again over the
# child's stack.  Before, the children's counts varied from run to run
# (2002, 2713, 4004 of the two first children) and the calls of those not
# counted were recorded as the parent's (child_fn, in_child); the third
# child's always were.  Now the thread's first event after a pause long
# enough for a clone has the next one check the thread id too, and the
# window leaves out the stack pointers of a context found on the thread's
# TLS until the thread itself runs there (runtime/coro.c).

PROGS = ("prog", "prog-fentry", "prog-patchable")
LIBC = {"waitpid": 3, "printf": 1}


def check_trace(ctx, d, out, what, libcall=False):
    assert out == "4000\n", (what, out)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 1$", info, re.M), (what, info)
    assert re.search(r"^lost: 6006$", info, re.M), (what, info)
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 6006 in children without TLS of "
                     r"their own \(vfork, clone\), 0 module records$", info, re.M), (what, info)
    assert "missing" not in info and "damage" not in info, (what, info)
    rows = {}
    for r in ctx.csv("-d", d, "--threads"):
        rows[(r["tid"], r["function"])] = int(r["calls"])
    parent = [t for (t, f) in rows if f == "main"]
    assert len(parent) == 1, (what, rows)
    p = parent[0]
    want = {(p, "main"): 1, (p, "in_parent"): 4000}
    if libcall:
        want.update({(p, f): n for f, n in LIBC.items()})
        rows.pop((p, "__cxa_atexit"), None)     # (-pg builds: gcrt1's start-up, before main)
    assert rows == want, (what, rows)
    rep = ctx.run("replay", "-d", d, check=True)
    got = [l.split("| ", 1)[1] for l in rep.stdout.splitlines() if "| " in l and not l.startswith("#")]
    if libcall:
        got = [l for l in got if l.strip().split("(")[0] not in LIBC]
    got = [l for l in got if "__cxa_atexit" not in l]
    assert got == ["main() {"] + ["  in_parent();"] * 4000 + ["} /* main */"], (what, got[:3], got[-3:])
    assert "missing" not in rep.stderr and "unwound" not in rep.stdout, (what, rep.stderr)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, "prog")
    for prog in PROGS[1:]:
        d, r = ctx.record_build(prog, "4000\n")
        check_trace(ctx, d, r.stdout, prog)
    for prog in PROGS:
        exe = os.path.join(ctx.work, prog)
        d = os.path.join(ctx.work, "libcall-" + prog)
        r = subprocess.run([ctx.fntrace, "record", "--libcall", "-d", d, "--", exe], capture_output=True, text=True,
                           errors="replace", cwd=ctx.work, timeout=120)
        assert r.returncode == 0, (prog, "libcall", r.returncode, r.stderr)
        check_trace(ctx, d, r.stdout, prog + " --libcall", libcall=True)
