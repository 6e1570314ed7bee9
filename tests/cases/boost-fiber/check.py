"""Boost.Fiber (work_stealing on two threads): fibers that end on the
worker and that main resumes to let them return and free their stacks
(prog.cc says how).  Each build, -finstrument-functions, -pg -mfentry and
-fpatchable-function-entry, prints what it prints untraced, counts every
call once (task 40, outer 40, inner 200, leaf 400) with nothing lost, and
replays the moves as moves: each call the fiber had open when main took its
stack over ends on the worker "(no return: moved to another thread)" and
returns where it was resumed "(entered on another thread)", in that order,
function by function; nothing is "entered before this process began" or "unwound", and
only the fibers' entry frames (Boost's fiber_entry, which never returns)
end as "trace ended".  `report`'s fast path agrees with the call layer, and
`replay -F task` shows every task whole.

Two bugs made this fail (doc/safety.md, "Fibers moved between threads"):
- the worker leaves its last fiber by Boost's own switch and makes no
  traced call after it; main's runtime found no parked stack for it and
  gave it a new name with no STACK_MOVED record, so its returns on main
  were "(entered before this process began)" and its calls on the worker
  "(no return: trace ended)" (every -pg and patchable run);
- the reader took such a return, on a stack named by a hand-written
  switch with no call open, for the return of the innermost call of
  another stack parked on the same thread (main's own fiber waiting in
  the same fiber entry) and closed that fiber's call instead.
Which fiber is the worker's last, and how many fibers main's scheduler
lets go of first, vary: the checks hold whatever the interleaving."""
import collections
import re

OUT = "total 9800\n"
COUNTS = {"task": 40, "outer": 40, "inner": 200, "leaf": 400}
END = re.compile(r"\} /\* (.*) \((no return: [^()]*|entered [^()]*)\) \*/$")


def rows(text):
    out = []
    for l in text.splitlines():
        m = re.match(r"\[\s*(\d+)\] \| (.*)$", l)
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def check_replay(what, text):
    pending = collections.defaultdict(collections.deque)   # function -> tids it was moved from
    bad, moved = [], 0
    for tid, body in rows(text):
        m = END.search(body)
        if not m:
            continue
        name, why = m.group(1), m.group(2)
        entry = "fiber_entry<" in name
        if why == "no return: moved to another thread":
            moved += 1
            if not entry:
                pending[name].append(tid)
        elif why == "entered on another thread":
            # (not always on another thread than the one that printed the
            # move: main's own fiber, stolen by the worker while it waited
            # and taken back by main, ends "moved" on main and returns there)
            if not pending[name]:
                bad.append("returned with no move before: " + body)
            else:
                pending[name].popleft()
        elif not (why == "no return: trace ended" and entry):
            bad.append(body)
    bad += ["moved, never returned: %s (%d)" % (f, len(q)) for f, q in pending.items() if q]
    assert not bad, (what, len(bad), bad[:6])
    return moved


def check_trace(ctx, d, what):
    got = {f: n for f, n in ctx.counts("-d", d).items() if f in COUNTS}
    assert got == COUNTS, (what, got)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^lost: 0$", info, re.M), (what, info)
    rep = ctx.run("replay", "--no-pager", "--fields", "tid", "-d", d, check=True)
    assert "skipped" not in rep.stderr and "damaged" not in rep.stderr, (what, rep.stderr)
    moved = check_replay(what, rep.stdout)
    assert moved >= 40, (what, "every fiber's stack moves to main", moved)
    fast = sorted(ctx.run("report", "-d", d, "--format", "csv", check=True).stdout.splitlines())
    layer = sorted(ctx.run("report", "-d", d, "--format", "csv", "-D", "100", check=True).stdout.splitlines())
    assert fast == layer, (what, fast, layer)
    ft = ctx.run("replay", "--no-pager", "--fields", "none", "-F", "task", "-d", d, check=True).stdout
    lines = [l.split("| ", 1)[-1].strip() for l in ft.splitlines() if l.strip() and not l.startswith("#")]
    n = collections.Counter(l for l in lines if l.endswith("() {") or l.endswith("();") or l.startswith("}"))
    assert (n["task() {"], n["outer() {"], n["inner() {"], n["} /* task */"], n["} /* inner */"]) == (40, 40, 200, 40, 200), \
        (what, n.most_common(12))
    assert not [l for l in lines if "(no return" in l or "(entered" in l], (what, "-F task")


def check(ctx):
    assert ctx.record.stdout == OUT, ctx.record.stdout
    check_trace(ctx, ctx.data, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        d, rec = ctx.record_build(prog, OUT)
        assert "out of sync" not in rec.stderr, (prog, rec.stderr)
        check_trace(ctx, d, prog)
