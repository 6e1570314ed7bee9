import os, re, subprocess
import exportcheck as X

# Fibers moved between threads (doc/safety.md, "Fibers moved between
# threads").  prog.c: makecontext/swapcontext fibers that two workers hand
# to each other through mailboxes; switch.c: a hand-written stack switch
# and a scheduler that is not traced, three fibers (switch1.c: one).  Each
# build, -finstrument-functions, -pg -mfentry and -fpatchable-function-entry,
# prints what it prints untraced and exits 0 (before the registry of parked
# stacks, the -pg and patchable builds aborted: "shadow stack out of sync"),
# with every call counted exactly once.  Replay ends the calls a fiber had
# open when another thread took it over as "moved to another thread" on the
# first thread and shows their returns on the second as "entered on another
# thread", at the depths they had; none is "unwound" nor "trace ended".

PROG_OUT = ("fiber 0 ran on 0 1 0 1: 97\nfiber 1 ran on 1 0 1 0: 457\n"
            "fiber 2 ran on 0 1 0 1: 817\nfiber 3 ran on 1 0 1 0: 1177\n")
SWITCH_OUT = "fiber 0 ran on 0 1 0 1: 97\nfiber 1 ran on 1 0 1 0: 457\nfiber 2 ran on 0 1 0 1: 817\n"
SWITCH1_OUT = "fiber 0 ran on 0 1 0 1: 97\n"
EXIT_OUT = "ran on 0 1 1 1: 24\n"

PROG_COUNTS = {"main": 1, "worker": 2, "take": 18, "resume": 16, "post": 16, "fiber_main": 4, "step": 12,
               "yield": 12, "leaf": 28}
SWITCH_COUNTS = {"main": 1, "fiber_main": 3, "step": 9, "yield": 9, "leaf": 21}
SWITCH1_COUNTS = {"main": 1, "fiber_main": 1, "step": 3, "yield": 3, "leaf": 7}
EXIT_COUNTS = {"main": 1, "fiber_main": 1, "step": 3, "yield": 3, "leaf": 6}


def lines(out):
    return [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]


def check_trace(ctx, d, what, counts, fibers, depths=None):
    """fibers: how many fibers, each moved 3 times (it runs 4 times, on
    alternate workers): 3 calls open at its first move, 2 at the others"""
    counts_got = {f: n for f, n in ctx.counts("-d", d).items() if f in counts}
    assert counts_got == counts, (what, counts_got)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^lost: 0$", info, re.M), (what, info)
    rep = ctx.run("replay", "-d", d, check=True)
    assert "skipped" not in rep.stderr and "damaged" not in rep.stderr, (what, rep.stderr)
    got = lines(rep.stdout)
    moved = [l for l in got if "(no return: moved to another thread)" in l]
    orphans = [l for l in got if "(entered on another thread)" in l]
    assert len(moved) == 7 * fibers and len(orphans) == 7 * fibers, (what, len(moved), len(orphans))
    names = {}
    for l in orphans:
        name = re.search(r"\} /\* (\w+) \(", l).group(1)
        names[name] = names.get(name, 0) + 1
    assert names == {"yield": 3 * fibers, "step": 3 * fibers, "fiber_main": fibers}, (what, names)
    if depths:          # each return at the depth its call had
        for l in orphans:
            name = re.search(r"\} /\* (\w+) \(", l).group(1)
            assert len(l) - len(l.lstrip(" ")) == 2 * depths[name], (what, l)
    bad = [l for l in got if "unwound" in l or "trace ended" in l or "entered before" in l]
    assert not bad, (what, bad)
    # report's unfiltered fast path ends and takes the moved calls as the
    # call layer does (-D forces it): the same times to the nanosecond
    fast = sorted(ctx.run("report", "-d", d, "--format", "csv", check=True).stdout.splitlines())
    layer = sorted(ctx.run("report", "-d", d, "--format", "csv", "-D", "100", check=True).stdout.splitlines())
    assert fast == layer, (what, fast, layer)


def check_export(ctx, d, what, fibers):
    """the chrome export names both ends of a move.  (Its B/E events do not
    nest per thread with coroutines, moved or not: a suspended coroutine's
    calls stay open while the thread runs others; not checked here)"""
    out = os.path.join(ctx.work, "out-%s.json" % what)
    p = ctx.run("export", "-d", d, "-f", "chrome", "-o", out)
    assert p.returncode == 0, (what, p.stderr)
    events = X.load_chrome(out)
    ends = [e for e in events if e["ph"] == "E" and e.get("args", {}).get("end") == "moved to another thread"]
    assert len(ends) == 7 * fibers, (what, len(ends))
    orphans = [e for e in events
               if e["ph"] == "i" and e.get("args", {}).get("end") == "exit of a call entered on another thread"]
    assert len(orphans) == 7 * fibers, (what, len(orphans))


def check(ctx):
    # worker > resume > fiber_main > step > yield
    depths = {"fiber_main": 2, "step": 3, "yield": 4}
    for prog in ("prog-fentry", "prog-patchable"):
        d, rec = ctx.record_build(prog, PROG_OUT)
        assert "out of sync" not in rec.stderr, (prog, rec.stderr)
        check_trace(ctx, d, prog, PROG_COUNTS, 4, depths)
    assert ctx.record.stdout == PROG_OUT, ctx.record.stdout
    check_trace(ctx, ctx.data, "prog", PROG_COUNTS, 4, depths)
    check_export(ctx, ctx.data, "prog", 4)
    # the same with library calls traced, as record does by default
    # (swapcontext is then a traced call that returns twice, the pthread
    # calls return through the trampoline)
    exe = os.path.join(ctx.work, "prog-fentry")
    d = os.path.join(ctx.work, "rec-libcall")
    rec = subprocess.run([ctx.fntrace, "record", "--libcall", "-d", d, "--", exe], capture_output=True, text=True,
                         cwd=ctx.work, timeout=120)
    assert rec.returncode == 0 and rec.stdout == PROG_OUT, ("libcall", rec.returncode, rec.stdout, rec.stderr)
    check_trace(ctx, d, "prog-fentry libcall", PROG_COUNTS, 4, depths)
    for prog in ("switch", "switch-fentry", "switch-patchable"):
        d, rec = ctx.record_build(prog, SWITCH_OUT)
        assert "out of sync" not in rec.stderr, (prog, rec.stderr)
        check_trace(ctx, d, prog, SWITCH_COUNTS, 3)
    # one fiber: a worker resumes it before the other has made any traced
    # call since it left it (the stack is not parked yet); exit.c: the
    # thread that left the fiber exits before main resumes it.  The program
    # runs as untraced and every call is counted; the trace cannot always
    # tell which calls moved (doc/safety.md), so only the counts are checked
    for progs, out, counts in ((("switch1", "switch1-fentry", "switch1-patchable"), SWITCH1_OUT, SWITCH1_COUNTS),
                               (("exit", "exit-fentry", "exit-patchable"), EXIT_OUT, EXIT_COUNTS)):
        for prog in progs:
            d, rec = ctx.record_build(prog, out)
            assert "out of sync" not in rec.stderr, (prog, rec.stderr)
            got = {f: n for f, n in ctx.counts("-d", d).items() if f in counts}
            assert got == counts, (prog, got)
            info = ctx.run("info", "-d", d, check=True).stdout
            assert re.search(r"^lost: 0$", info, re.M), (prog, info)
