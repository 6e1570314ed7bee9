"""A flight recorder (--ring 32K) of programs with ucontext coroutines:
missing-chunk's co.c (a generator), and prog.c's "multi" (three
generators that main resumes in turn, each yielding from the same
function) and "nested" (a coroutine that resumes another).  The history
kept starts in the middle of the run, on a coroutine's stack or on main's.  Its replay must nest and
indent every call as the replay of the whole run does: from its first
produce() on, the kept history is the whole run's replay's last lines
(but for the returns of calls entered before it, which say so, and the
generator's frames still open at exit, of which it knows only the ones
entered in it).  Three runs on each build, so that the kept history
begins on either stack.

Before: no SWITCH began a chunk after the thread's first, so the reader
put the frames of the stack the kept history began on onto the thread's
own stack, and main's consume() and next() showed inside the generator's
yield().  A SWITCH alone was not enough either: the thread's depth counts
on across switches, so main's calls showed as deep as the whole count,
and a stack entered with calls open on it had them over main's.  Now each
chunk of a thread that switched stacks begins with a SWITCH and says (its
header's `below`) how many calls are open on that stack and under it, and
a SWITCH_OPEN says how many are open on the stack resumed (format version
3).  missing-chunk checks the same after a gap."""
import os
import re


def calls(ctx, d):
    out = ctx.run("replay", "--no-pager", "-d", d, check=True).stdout
    return [l.split("| ", 1)[1].rstrip() for l in out.splitlines() if "| " in l and not l.startswith("#")]


def nesting(lines):
    """each call line's name and the name of the call it shows inside (by
    indentation), or None at the top"""
    open_, out = [], []
    for l in lines:
        ind, text = len(l) - len(l.lstrip()), l.strip()
        m = re.match(r"(\w+)\(\)( \{|;)$", text)
        if not m:
            continue
        while open_ and open_[-1][0] >= ind:
            open_.pop()
        out.append((m.group(1), open_[-1][1] if open_ else None))
        if m.group(2) == " {":
            open_.append((ind, m.group(1)))
    return out


# program, its arguments, the function whose first call entered in the kept
# history starts the comparison, main's functions and the coroutines' (a
# call of main's never shows inside a coroutine's; the coroutines' show
# inside the call that resumed them)
RUNS = [("co", [], "produce", {"main", "next", "consume"}, {"generator", "produce", "yield"}),
        ("co-fentry", [], "produce", {"main", "next", "consume"}, {"generator", "produce", "yield"}),
        ("prog", ["multi"], "gwork", {"main", "gnext", "consume"}, {"gen", "gwork", "gdeep", "gyield"}),
        ("prog-fentry", ["multi"], "gwork", {"main", "gnext", "consume"}, {"gen", "gwork", "gdeep", "gyield"}),
        ("prog", ["nested"], "afilter", {"main", "anext", "consume"}, {"agen", "afilter", "bnext", "ayield",
                                                                     "bgen", "bwork", "byield"}),
        ("prog-fentry", ["nested"], "afilter", {"main", "anext", "consume"}, {"agen", "afilter", "bnext",
                                                                            "ayield", "bgen", "bwork", "byield"})]


def check(ctx):
    for prog, args, start, main, coro in RUNS:
        exe = os.path.join(ctx.work, prog)
        ring, whole = os.path.join(ctx.work, "ring-" + prog), os.path.join(ctx.work, "whole-" + prog)
        ctx.run("record", "-q", "-d", whole, "--", exe, *args, data=False, check=True)
        all_ = calls(ctx, whole)
        assert any("(no return: trace ended)" in l for l in all_), (prog, args, all_[-8:])
        for run in range(3):
            ctx.run("record", "-q", "--ring", "32K", "-d", ring, "--", exe, *args, data=False, check=True)
            kept = calls(ctx, ring)
            assert any("(entered before the history start)" in l for l in kept), (prog, args, kept[:10])
            wrong = [(f, p) for f, p in nesting(kept) if f in main and p in coro]
            assert not wrong, (prog, args, wrong[:5], kept[:30])
            # from the first call of `start` entered in the kept history
            # to the end, line for line as in the whole run (the returns of
            # the calls entered before it say so; the coroutines suspended
            # at exit end there, and the kept history knows of only the
            # frames entered in it)
            first = next(i for i, l in enumerate(kept) if l.strip() == start + "() {")
            part = [l.replace(" (entered before the history start) */", " */") for l in kept[first:]]
            part = [l for l in part if "(no return: trace ended)" not in l]
            want = [l for l in all_ if "(no return: trace ended)" not in l][-len(part):]
            assert len(part) > 1000 and part == want, \
                (prog, args, run, [(a, b) for a, b in zip(part, want) if a != b][:5])
