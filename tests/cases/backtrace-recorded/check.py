"""A backtrace a recording stores (record -T FUNC@backtrace) ends at main
on the main thread and at the thread's start function on another, the
frames below (libc's) left to `fntrace stacks`.  Under record -F it ended
at the outermost call written, the -F function itself: a backtrace of one
frame.  -finstrument-functions and -pg -mfentry builds.

stacks.c: a call that record-time -C or -t erases goes with the stacks
fnt_capture_stack() took in it (they kept it, where replay dropped it),
and -t measures a call from its entry, not from its last stack; a stack
taken in a call the filters leave out is not written, and one in a call
-H hides shows one level up."""
import os
import re
import shutil

MAIN = ["/* stack #0  {p}!leaf (prog.c) */", "/* stack #1  {p}!mid (prog.c) */", "/* stack #2  {p}!main (prog.c) */"]
WORKER = ["/* stack #0  {p}!leaf (prog.c) */", "/* stack #1  {p}!mid (prog.c) */",
          "/* stack #2  {p}!worker (prog.c) */"]


def stacks(ctx, d, *opts):
    """each thread's stack lines, by thread (main first), without line numbers"""
    p = ctx.run("replay", "--no-pager", "--fields", "tid", "-d", d, *opts, check=True)
    by = {}
    for l in p.stdout.splitlines():
        m = re.match(r"\[\s*(\d+)\] \|\s*(/\* stack .*)$", l)
        if m:
            by.setdefault(m.group(1), []).append(re.sub(r":\d+\)", ")", m.group(2)))
    return [by[k] for k in sorted(by, key=int)]


def check(ctx):
    check_stacks(ctx)
    for prog in ("prog", "prog-fentry"):
        exe = os.path.join(ctx.builddir if prog == "prog" else ctx.work, prog)
        want = [[l.format(p=prog) for l in MAIN], [l.format(p=prog) for l in WORKER]]
        for n, opts in enumerate((["-T", "leaf@backtrace"], ["-F", "leaf", "-T", "leaf@backtrace"],
                                  ["-F", "mid", "-T", "leaf@backtrace"], ["-N", "pthread_join", "-T", "leaf@backtrace"])):
            d = os.path.join(ctx.work, "%s-%d.data" % (prog, n))
            ctx.run("record", "-q", "-d", d, *opts, "--", exe, data=False, check=True)
            assert stacks(ctx, d) == want, (prog, opts, stacks(ctx, d))
            # a read-time filter keeps them as they are
            assert stacks(ctx, d, "-F", "leaf") == want, (prog, opts)
        # `fntrace stacks` shows every frame, libc's below too
        out = ctx.run("stacks", "--no-pager", "-d", d, check=True).stdout
        assert out.count("\n  #3 ") == 2, out


def lines(ctx, d, *opts):
    p = ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, *opts, check=True)
    return [re.sub(r":\d+\)", ")", l[2:]) for l in p.stdout.splitlines() if l.startswith("| ")]


def check_stacks(ctx):
    for prog in ("stacks", "stacks-fentry"):
        exe = os.path.join(ctx.work, prog)
        full, rc, rt = (os.path.join(ctx.work, "%s-%s.data" % (prog, k)) for k in ("full", "c", "t"))
        ctx.run("record", "-q", "-d", full, "--", exe, data=False, check=True)
        ctx.run("record", "-q", "-d", rc, "-C", "b", "--", exe, data=False, check=True)
        ctx.run("record", "-q", "-d", rt, "-t", "4ms", "--", exe, data=False, check=True)
        # -C b: q() leads to no b(): gone with its stack, on both sides
        want = lines(ctx, full, "-C", "b")
        assert want == lines(ctx, rc), (prog, want, lines(ctx, rc))
        assert not any("q()" in l or "!q " in l for l in want), want
        assert sum("/* stack #0" in l for l in want) == 8, want
        # a stack taken in a call the filters leave out is not written
        # (it was, under the innermost call written), and one in a call
        # -H hides shows one level up (replay dropped it), as replay shows
        # them of the full recording
        for n, opts in enumerate((["-H", "s2"], ["-N", "s2"], ["-F", "q"], ["-D", "1"], ["-H", "s2", "-C", "b"],
                                  ["-F", "s2", "-H", "s2"])):
            d = os.path.join(ctx.work, "%s-f%d.data" % (prog, n))
            ctx.run("record", "-q", "-d", d, *opts, "--", exe, data=False, check=True)
            want = lines(ctx, full, *opts)
            assert lines(ctx, d) == want, (prog, opts, lines(ctx, d), want)
        assert sum("/* stack #0" in l for l in lines(ctx, full, "-H", "s2")) == 9
        # -t 4ms: s2(2) and s2(1) last 6 ms or more (two sleeps of 3):
        # kept, with their two stacks each (s2(1) went, measured from its
        # last stack, 3 ms before its end); q() (microseconds) is not.
        # s2(0) (3 ms) may be kept on a loaded machine: a sleep overshoots
        got = lines(ctx, rt)
        # (q() stopped for 4 ms by a loaded machine is kept, rightly: up
        # to 5 recordings until one without)
        for _ in range(4):
            if not any("q()" in l for l in got):
                break
            shutil.rmtree(rt)
            ctx.run("record", "-q", "-d", rt, "-t", "4ms", "--", exe, data=False, check=True)
            got = lines(ctx, rt)
        inner = [i for i, l in enumerate(got) if l == "    s2() {"]
        assert len(inner) == 1 and sum("/* stack #0" in l for l in got[inner[0]:inner[0] + 7]) == 2, (prog, got)
        assert sum("/* stack #0" in l for l in got) >= 4, (prog, got)
        assert not any("q()" in l for l in got), (prog, got)
