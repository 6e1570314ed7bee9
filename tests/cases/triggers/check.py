"""-T, --trigger FUNC@ACTION at record time and at read time, and -H, -C and
--max-stack at record time (issue 14).  Each action is recorded with the
option, then read with it from a full recording; both replays are compared
with the expected lines (--fields none: names and nesting only).

The program: main -> mid -> leaf x2; start; top -> mid -> leaf x2; stop;
quick -> top -> mid -> leaf x2; slow (3 ms) -> top...; quick -> top...."""
import os
import re

TM = ["top() {", "  mid() {", "    leaf();", "    leaf();", "  } /* mid */", "} /* top */"]


def sub(name, body):
    return ["%s() {" % name] + ["  " + l for l in body] + ["} /* %s */" % name]


MID = sub("mid", ["leaf();", "leaf();"])
FULL = sub("main", MID + ["start();"] + TM + ["stop();"] + sub("quick", TM) + sub("slow", TM) + sub("quick", TM))


def lines(text):
    out = []
    for l in text.splitlines():
        if l.startswith("#"):
            continue
        assert l.startswith("| "), l
        out.append(l[2:])
    return out


def check(ctx):
    prog = os.path.join(ctx.builddir, "prog")
    n = [0]

    def record(*opts):
        n[0] += 1
        d = os.path.join(ctx.work, "t%d.data" % n[0])
        ctx.run("record", "-q", "-d", d, *opts, "--", prog, data=False, check=True)
        return d

    def replay(d, *opts):
        return lines(ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, *opts, check=True).stdout)

    def quick_max(d):
        """the longest quick() call of a recording, ns (0: none in it)"""
        rows = {r["function"]: r for r in ctx.csv("-d", d)}
        return int(rows["quick"]["max_ns"]) if "quick" in rows else 0

    # quick() lasts a few microseconds, unless the scheduler takes the CPU
    # away inside it: on a loaded machine a call can last 1 ms or more, and
    # time=1ms then rightly keeps it.  The read-time checks below take the
    # full recording's quick() calls to be short: record again until they
    # are (every recording's tree is checked)
    for _ in range(10):
        full = record()
        assert replay(full) == FULL, replay(full)
        if quick_max(full) < 1000000:
            break
    assert quick_max(full) < 1000000, "quick() lasted 1 ms or more in 10 recordings"

    def both(opts, want, want_record=None, record_opts=()):
        got = replay(record(*record_opts, *opts))
        assert got == (want_record or want), (opts, "record", got)
        got = replay(full, *opts)
        assert got == want, (opts, "read", got)

    # trace_on / trace_off: from FUNC's entry (FUNC itself shown for trace_on,
    # not for trace_off); with a trace_on, each thread starts off at read time
    # (record --trace=off does it at record time)
    on_off = ["start();"] + TM
    both(["-T", "start@trace_on", "-T", "stop@trace_off"], on_off, record_opts=["--trace=off"])
    after_start = ["start();"] + TM + ["stop();"] + sub("quick", TM) + sub("slow", TM) + sub("quick", TM)
    # (-pg -mfentry and patchable entries: main's return is seen only when its entry was)
    swapped = "fentry" in str(ctx.case) or "patchable" in str(ctx.case)
    # (the trace says recording was off: main was entered then, not before
    # the process began, as replay said before its RECORDING meta records)
    orphan = [] if swapped else ["} /* main (entered while recording was off) */"]
    both(["-T", "start@trace_on"], after_start, after_start + orphan, record_opts=["--trace=off"])
    if not swapped:
        d = record("--trace=off", "-T", "start@trace_on")
        chrome = ctx.run("export", "-d", d, "--format", "chrome", "-o", "-", check=True).stdout
        assert chrome.count('"end":"exit of a call entered while recording was off"') == 1, chrome
    before_top = ["main() {"] + ["  " + l for l in MID + ["start();"]]
    # (main's return came while recording was off: it was entered while it
    # was on, and its return is written; before, "(no return: recording
    # was off)", and the calls after a trace_on nested inside the calls that
    # had returned)
    both(["-T", "top@trace_off"], before_top + ["} /* main */"])

    # depth=N: N levels from FUNC, FUNC included
    both(["-T", "mid@depth=1"],
         sub("main", ["mid();", "start();", "top() {", "  mid();", "} /* top */", "stop();"] +
             sub("quick", ["top() {", "  mid();", "} /* top */"]) + sub("slow", ["top() {", "  mid();", "} /* top */"]) +
             sub("quick", ["top() {", "  mid();", "} /* top */"])))
    tm2 = ["top() {", "  mid();", "} /* top */"]
    both(["-T", "quick@depth=2"], sub("main", MID + ["start();"] + TM + ["stop();"] + sub("quick", ["top();"]) +
                                      sub("slow", TM) + sub("quick", ["top();"])))

    # with -H, the hidden level does not count
    tl = sub("top", ["leaf();", "leaf();"])
    both(["-T", "top@depth=2", "-H", "mid"], sub("main", ["leaf();", "leaf();", "start();"] + tl + ["stop();"] +
                                                  sub("quick", tl) + sub("slow", tl) + sub("quick", tl)))

    # finish: nothing after FUNC returns
    fin = ["main() {"] + ["  " + l for l in MID + ["start();"] + TM]
    both(["-T", "top@finish"], fin + ["} /* main */"], fin + ["} /* main (no return: recording was off) */"])

    # after a finish, trace_on turns nothing on again; a finish on a call
    # made while recording is off does nothing (at record time the runtime
    # looks for it only as it writes an entry): at read time the trace_on
    # makes the threads start off, so the first top() is not shown and
    # does not finish (before, nothing at all was shown), as in a
    # recording with --trace=off
    qtm = ["quick() {"] + ["  " + l for l in TM]
    both(["-T", "top@finish", "-T", "quick@trace_on"], qtm + ["} /* quick */"],
         fin + ["} /* main (no return: recording was off) */"])
    both(["-T", "top@finish", "-T", "quick@trace_on"], qtm + ["} /* quick */"],
         qtm + ["} /* quick (no return: recording was off) */"], record_opts=["--trace=off"])

    # time=DUR: FUNC's calls shorter than DUR left out with their subtrees
    # (at record time, a quick() call kept must have lasted 1 ms: then the
    # program runs again, up to 10 times, until both are left out)
    opts, want = ["-T", "quick@time=1ms", "-T", "slow@time=1ms"], \
        sub("main", MID + ["start();"] + TM + ["stop();"] + sub("slow", TM))
    for _ in range(10):
        d = record(*opts)
        got = replay(d)
        if got == want:
            break
        assert quick_max(d) >= 1000000, (opts, "record", got)
    assert got == want, (opts, "record", got)
    assert replay(full, *opts) == want, (opts, "read", replay(full, *opts))
    both(["-T", "slow@time=1s"], sub("main", MID + ["start();"] + TM + ["stop();"] + sub("quick", TM) + sub("quick", TM)))

    # hide (= -H), notrace (= -N), filter (= -F)
    hidden = sub("main", MID + ["start();"] + MID + ["stop();"] + sub("quick", MID) + sub("slow", MID) +
                 sub("quick", MID))
    both(["-T", "top@hide"], hidden)
    both(["-H", "top"], hidden)
    both(["-T", "top@notrace"], sub("main", MID + ["start();", "stop();", "quick();", "slow();", "quick();"]))
    both(["-T", "top@filter"], TM * 4)

    # -C at record time: only the calls that lead to FUNC (start and stop do not)
    callers = lines(ctx.run("replay", "--no-pager", "--fields", "none", "-d", full, "-C", "leaf", check=True).stdout)
    assert callers == sub("main", MID + TM + sub("quick", TM) + sub("slow", TM) + sub("quick", TM)), callers
    assert replay(record("-C", "leaf")) == callers
    assert replay(record("-C", "mid")) == sub("main", ["mid();", "top() {", "  mid();", "} /* top */"] +
                                              sub("quick", tm2) + sub("slow", tm2) + sub("quick", tm2))
    # -C with the calls it leads through hidden (-H) or not written (-D,
    # --max-stack, depth=N): they still lead to FUNC, and start() still does
    # not (kept after a hidden mid(), and everything erased past -D, before)
    th = sub("top", ["leaf();"] * 2)
    assert replay(record("-C", "leaf", "-H", "mid")) == sub("main", ["leaf();"] * 2 + th + sub("quick", th) +
                                                             sub("slow", th) + sub("quick", th))
    for opts in (["-D", "2"], ["-D", "1"], ["-F", "top", "-D", "1"], ["-T", "top@depth=1"]):
        want = replay(full, "-C", "leaf", *opts)
        assert want and replay(record("-C", "leaf", *opts)) == want, opts
    assert replay(record("-C", "leaf", "--max-stack", "2")) == replay(full, "-C", "leaf", "-D", "2")
    # a hidden call that opened a -F match or a depth=N limit closes them
    # on its exit (they stayed open: 'stop();' kept after a hidden -F top,
    # slow()'s subtree cut after a hidden quick@depth=1); and read time
    # applies a hidden call's depth=N as record time does (it ignored it)
    tq = sub("top", ["mid();"])
    assert replay(record("-F", "top", "-H", "top")) == MID * 4
    assert replay(full, "-H", "quick", "-T", "quick@depth=2") == \
        sub("main", MID + ["start();"] + TM + ["stop();"] + tq + sub("slow", TM) + tq)
    for opts in (["-H", "quick", "-T", "quick@depth=2"], ["-H", "quick", "-T", "quick@depth=1"],
                 ["-F", "mid", "-H", "mid"], ["-H", "top", "-T", "top@depth=1", "-C", "leaf"],
                 ["-F", "quick", "-H", "quick", "-T", "quick@depth=2"]):
        want = replay(full, *opts)
        assert want and replay(record(*opts)) == want, (opts, want)

    # -D N after a trace_on counts the levels written, not those entered
    # while recording was off (main, and quick above the second top): the
    # first top() showed without its callees, nothing of the next ones.
    # (The returns of the calls entered while off are written, replay -T
    # trace_on does not show them: compared without.)
    for opts in (["-D", "2"], ["-D", "1"], ["-H", "mid", "-D", "2"]):
        want = replay(full, "-T", "top@trace_on", *opts)
        got = [l for l in replay(record("--trace=off", "-T", "top@trace_on", *opts))
               if "(entered while recording was off)" not in l]
        assert got == want, (opts, got, want)
    assert replay(full, "-T", "top@trace_on", "-D", "2")[:5] == ["top() {", "  mid();", "} /* top */", "stop();",
                                                                  "quick() {"]
    # --max-stack N: no call deeper than N from the thread's first frame,
    # whatever -F says (-D counts from each -F match)
    two = sub("main", ["mid();", "start();", "top();", "stop();", "quick();", "slow();", "quick();"])
    assert replay(record("--max-stack", "2")) == two
    assert replay(full, "-D", "2") == two
    assert replay(record("-F", "top", "--max-stack", "3")) == tm2 + ["top();"] * 3
    assert replay(record("-F", "top", "-D", "2")) == tm2 * 4

    # backtrace: FUNC's stack after its entry line; at record time the
    # return addresses (the call lines), at read time the open calls (the
    # lines where they start)
    got = replay(record("-T", "mid@backtrace"))
    bt = [l.strip() for l in got if "/* stack" in l]
    assert len(bt) == 17, got
    assert bt[:2] == ["/* stack #0  prog!mid (prog.c:8) */", "/* stack #1  prog!main (prog.c:16) */"], bt
    assert bt[2:5] == ["/* stack #0  prog!mid (prog.c:8) */", "/* stack #1  prog!top (prog.c:9) */",
                       "/* stack #2  prog!main (prog.c:18) */"], bt
    assert [l for l in got if "/* stack" not in l] == FULL
    got = replay(full, "-T", "mid@backtrace")
    bt = [l.strip() for l in got if "/* stack" in l]
    assert bt[:2] == ["/* stack #0  prog!mid (prog.c:8) */", "/* stack #1  prog!main (prog.c:14) */"], bt
    assert bt[-4:] == ["/* stack #0  prog!mid (prog.c:8) */", "/* stack #1  prog!top (prog.c:9) */",
                       "/* stack #2  prog!quick (prog.c:10) */", "/* stack #3  prog!main (prog.c:14) */"], bt
    assert len(bt) == 17 and [l for l in got if "/* stack" not in l] == FULL
    # ...also when -t (or -C) shows the call only after its entry (read
    # time dropped the stack then; record time keeps it): slow() lasts 3 ms
    for d, opts in ((full, ["-t", "2ms", "-T", "slow@backtrace"]), (record("-t", "2ms", "-T", "slow@backtrace"), [])):
        got = [l.strip() for l in replay(d, *opts)]
        i = got.index("slow() {")
        assert re.sub(r":\d+\)", ")", " ".join(got[i + 1:i + 3])) == \
            "/* stack #0  prog!slow (prog.c) */ /* stack #1  prog!main (prog.c) */", (opts, got)
    # ...and the stack a recording holds (record -T) of a call that -t or
    # -C shows only after its entry: shown with the call, as a recording
    # with the read-time filters too has it (replay dropped it)
    for opts, trig, frames in ((["-t", "2ms"], ["-T", "slow@backtrace"], 2),
                               (["-C", "leaf"], ["-T", "mid@backtrace"], 17)):
        # (two recordings: a call of microseconds that a loaded machine
        # stops for 2 ms lasts long enough for -t in one of them only; up to
        # 5 pairs until they agree)
        for _ in range(5):
            got = replay(record(*trig), *opts)
            assert sum("/* stack #" in l for l in got) == frames, (opts, got)
            other = replay(record(*(opts + trig)))
            if got == other:
                break
        assert got == other, (opts, got, other)
    # -t with -C: a call that has lasted long enough is shown only once it
    # leads to the -C function (slow() lasts 3 ms and leads to no stop():
    # it showed; main() showed twice, and a backtrace trigger's stack too)
    got = replay(full, "-t", "2ms", "-C", "stop", "-T", "main@backtrace")
    got = [l for l in got if "/* stack" not in l or "prog!main" in l]
    assert got in (["main() {", "  /* stack #0  prog!main (prog.c:14) */", "} /* main */"],
                   ["main() {", "  /* stack #0  prog!main (prog.c:14) */", "  stop();", "} /* main */"]), got
    assert replay(full, "-t", "2ms", "-C", "slow") == replay(record("-t", "2ms", "-C", "slow")) == sub("main", ["slow();"])
    p = ctx.run("stacks", "--no-pager", "-d", record("-T", "leaf@backtrace"), check=True)
    assert p.stdout.count("\nstack ") + p.stdout.startswith("stack ") == 10, p.stdout

    # snapshot: a flight-recorder copy at FUNC's entry
    d = record("--ring", "1M", "-T", "start@snapshot")
    snap = os.path.join(d, "snapshot-trigger-1")
    got = ctx.counts("-d", snap)
    assert got.get("mid") == 1 and got.get("leaf") == 2 and got.get("start") == 1 and "top" not in got, got
    assert ctx.counts("-d", d)["top"] == 4

    # report and graph take -T too
    rows = {r["function"]: int(r["calls"]) for r in ctx.csv("-d", full, "-T", "quick@time=1ms")}
    assert rows == {"main": 1, "mid": 3, "leaf": 6, "start": 1, "top": 2, "stop": 1, "slow": 1}, rows
    g = ctx.run("graph", "--no-pager", "-d", full, "-T", "top@depth=1", check=True).stdout
    tree = [re.sub(r"^\s*\S+ \S+\s+\S+ \S+\s+", "", l) for l in g.splitlines()[3:]]
    assert tree == ["1  main", "1  +-mid", "2  |  +-leaf", "1  +-start", "1  +-top", "1  +-stop", "2  +-quick",
                    "2  |  +-top", "1  +-slow", "1     +-top"], tree

    p = ctx.run("export", "-q", "-f", "folded", "--value", "calls", "-d", full, "-T", "quick@time=1ms", "-o", "-",
                check=True)
    stacks = dict(l.rsplit(" ", 1) for l in p.stdout.splitlines())
    assert stacks == {"main": "1", "main;mid": "1", "main;mid;leaf": "2", "main;start": "1", "main;top": "1",
                      "main;top;mid": "1", "main;top;mid;leaf": "2", "main;stop": "1", "main;slow": "1",
                      "main;slow;top": "1", "main;slow;top;mid": "1", "main;slow;top;mid;leaf": "2"}, stacks

    # info shows the triggers the trace was recorded with
    info = ctx.run("info", "--no-pager", "-d", record("-T", "top@depth=2,backtrace", "-H", "leaf", "-C", "mid",
                                                      "--max-stack", "9"), check=True).stdout
    assert "filters: -T top@backtrace,depth=2 -H leaf -C mid --max-stack 9" in info, info
    info = ctx.run("info", "--no-pager", "-d", record("-T", "q*@time=1500us,finish"), check=True).stdout
    assert "filters: -T 'q*@finish,time=1500us'" in info, info

    # erasures after record copied the buffer being written (every 50 ms;
    # with an argument main lasts 200 ms more): the file must not keep the
    # erased bytes (read as damage before)
    for opts in (["-C", "nosuch"], ["-T", "main@time=1s"], ["-t", "1s"]):
        d = os.path.join(ctx.work, "late.data")
        ctx.run("record", "-q", "-d", d, *opts, "--", prog, "wait", data=False, check=True)
        p = ctx.run("replay", "--no-pager", "-d", d)
        assert "could not be decoded" not in p.stderr and "no function events" in p.stderr, (opts, p.stderr)

    # usage errors name the option and the bad action
    for cmd, arg, msg in (
            ("record", "top@fly", "option '-T/--trigger': unknown action 'fly' in 'top@fly'"),
            ("record", "top", "option '-T/--trigger' takes FUNC@ACTION"),
            ("record", "top@depth=0", "action 'depth=' takes a depth of at least 1, not '0'"),
            ("record", "top@time=5", "takes a duration with its unit"),
            ("record", "top@trace_on,trace_off", "has both trace_on and trace_off"),
            ("replay", "top@snapshot", "action 'snapshot' in 'top@snapshot' works at record time only"),
            ("report", "top@depth=x", "option '-T/--trigger depth='")):
        args = [cmd, "-T", arg] + (["-d", os.path.join(ctx.work, "x.data"), "--", prog] if cmd == "record" else
                                   ["-d", full])
        p = ctx.run(*args, data=False)
        assert p.returncode == 2 and msg in p.stderr, (arg, p.stderr)
    p = ctx.run("replay", "--no-pager", "-d", full, "-T", "nosuch@depth=1", check=True)
    assert "-T 'nosuch' matches no function that was called" in p.stderr, p.stderr
    p = ctx.run("record", "--max-stack", "0", "-d", os.path.join(ctx.work, "x.data"), "--", prog, data=False)
    assert p.returncode == 2 and "option '--max-stack' takes a depth of at least 1" in p.stderr, p.stderr
