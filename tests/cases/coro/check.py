import os, re, subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import exportcheck as X


def lines(out):
    return [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]


def tree(out):
    """graph's tree as (name, calls, depth)"""
    rows = []
    for l in out.splitlines():
        m = re.match(r"^ +\S+ +\S+ +\S+ +\S+ +(\d+)  (.*)$", l)
        if m:
            name = m.group(2).lstrip("|+- ")
            rows.append((name, int(m.group(1)), (len(m.group(2)) - len(name) + 1) // 3))
    return rows


def nested_calls(tracks):
    """calls per function over tracks whose slices must each nest"""
    got = {}
    for slices in tracks.values():
        X.nest(slices)
        for s in slices:
            got[s[2]] = got.get(s[2], 0) + 1
    return got


def check(ctx):
    # the golden replay is the -finstrument-functions build's; the -pg -mfentry
    # and -fpatchable-function-entry builds of the same program must nest the
    # same, and every build prints what it prints untraced
    want = open(os.path.join(os.path.dirname(__file__), "expected", "replay")).read()
    want = [l.split("| ", 1)[1] for l in want.splitlines() if "| " in l]
    assert ctx.record.stdout == "got 1\ngot 4\ngot 9\ndone\n", ctx.record.stdout
    for prog in ("prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0 and plain.stdout == "got 1\ngot 4\ngot 9\ndone\n", plain
        d = os.path.join(ctx.work, "rec-" + prog)
        p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe],
                           capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert p.returncode == 0, (prog, p.returncode, p.stderr)
        assert p.stdout == plain.stdout, (prog, p.stdout)
        assert "out of sync" not in p.stderr, p.stderr
        got = lines(ctx.run("replay", "-d", d, check=True).stdout)
        assert got == want, (prog, "\n".join(got))
        # every call counted once, whatever stack it ran on
        counts = ctx.counts("-d", d)
        assert counts == {"main": 1, "next": 4, "generator": 1, "produce": 3, "square": 3, "yield": 3,
                          "consume": 3, "idle": 1}, (prog, counts)
    # report's unfiltered fast path follows the switches as the call layer
    # does (-D forces the call layer): the same times to the nanosecond
    for d in [ctx.data] + [os.path.join(ctx.work, "rec-" + p) for p in ("prog-fentry", "prog-patchable")]:
        fast = sorted(ctx.run("report", "-d", d, "--format", "csv", check=True).stdout.splitlines())
        layer = sorted(ctx.run("report", "-d", d, "--format", "csv", "-D", "100", check=True).stdout.splitlines())
        assert fast == layer, (d, fast, layer)
    # graph follows the switches too: a coroutine's calls nest under the
    # call that first switched to its stack (as in replay), main's own calls
    # stay under main (before: consume and next under produce, main's total
    # 8 us of its 55)
    want = [("main", 1, 0), ("next", 4, 1), ("generator", 1, 2), ("produce", 3, 3), ("square", 3, 4),
            ("yield", 3, 4), ("consume", 3, 1), ("idle", 1, 1)]
    for d in [ctx.data] + [os.path.join(ctx.work, "rec-" + p) for p in ("prog-fentry", "prog-patchable")]:
        got = tree(ctx.run("graph", "-d", d, check=True).stdout)
        assert got == want, (d, got)
    # the exports too: chrome and perfetto put each coroutine stack on a
    # track of its own (below the thread's), so that every track's slices
    # nest (before: the generator's yield was open when main's next ended,
    # on one track); speedscope's one profile per thread closes a stack's
    # frames when the thread leaves it and opens them again when it comes
    # back.  The loaders check the nesting; the counts are the calls.
    calls = {"main": 1, "next": 4, "generator": 1, "produce": 3, "square": 3, "yield": 3, "consume": 3, "idle": 1}
    sl, tn, _, _ = X.chrome_threads(X.load_chrome(X.export(ctx, "chrome")))
    assert len(sl) == 3 and len([n for n in tn.values() if "stack 0x" in n]) == 2, tn
    assert nested_calls(sl) == calls, sl
    sl, tn, _, _, _, _ = X.load_perfetto(X.export(ctx, "perfetto"))
    assert len(sl) == 3 and len([n for n in tn.values() if n.startswith("stack 0x")]) == 2, tn
    assert nested_calls(sl) == calls, sl
    prof, _ = X.load_speedscope(X.export(ctx, "speedscope"))
    assert len(prof) == 1, prof.keys()
    slices = list(prof.values())[0]
    assert {s_[2] for s_ in slices} == set(calls), slices
    # a stack's frames close at the switch, not at the thread's previous
    # event: next's slices each last until its swapcontext (they were 0 ns)
    assert all(e > b for b, e, name, _ in slices if name == "next"), [x for x in slices if x[2] == "next"]
