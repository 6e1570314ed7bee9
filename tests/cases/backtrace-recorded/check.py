"""A backtrace a recording stores (record -T FUNC@backtrace) ends at main
on the main thread and at the thread's start function on another, the
frames below (libc's) left to `fntrace stacks`.  Under record -F it ended
at the outermost call written, the -F function itself: a backtrace of one
frame.  -finstrument-functions and -pg -mfentry builds."""
import os
import re

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
    for prog in ("prog", "prog-fentry"):
        exe = os.path.join(ctx.builddir if prog == "prog" else ctx.work, prog)
        want = [[l.format(p=prog) for l in MAIN], [l.format(p=prog) for l in WORKER]]
        for n, opts in enumerate((["-T", "leaf@backtrace"], ["-F", "leaf", "-T", "leaf@backtrace"],
                                  ["-F", "mid", "-T", "leaf@backtrace"], ["-N", "pthread_join", "-T", "leaf@backtrace"])):
            d = os.path.join(ctx.work, "%s-%d.data" % (prog, n))
            ctx.run("record", "-q", "-d", d, *opts, "--", exe, data=False, check=True)
            assert stacks(ctx, d) == want, (prog, opts, stacks(ctx, d))
            # read-time filters and -t keep them as they are
            assert stacks(ctx, d, "-F", "leaf") == want, (prog, opts)
        # `fntrace stacks` shows every frame, libc's below too
        out = ctx.run("stacks", "--no-pager", "-d", d, check=True).stdout
        assert out.count("\n  #3 ") == 2, out
