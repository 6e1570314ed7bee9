"""fntrace tui on a real terminal (tmux: send-keys types, capture-pane reads
the screen), a user's session from start to end: the call graph is folded
and unfolded line by line, the report is sorted by a key and by a click on
a column, the replay of a thread is searched forwards and backwards, a
function is followed from one view to another (and to the other thread),
the terminal is resized, the key help is shown, the mouse selects, folds
and scrolls, q quits.  Each step's screen is compared with a golden file
(expected/*.screen: durations read D, thread ids T).  Then the filters
(-F, -H, -C, a --since past every call), the colours of durations
(--color=never: none) and the refusals: not a terminal, no trace."""
import difflib
import os
import re
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tmuxscreen import Screen, normalise

EXPECTED = os.path.join(os.path.dirname(__file__), "expected")


def golden(name, lines, s=None):
    actual = "".join(l + "\n" for l in lines if l)      # blank lines of the screen left out
    path = os.path.join(EXPECTED, name + ".screen")
    if os.environ.get("FNTRACE_UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(actual)
    with open(path) as f:
        want = f.read()
    # the screen once it has settled: a later look that matches passes (a
    # redraw tmux had not finished reading); one that never does fails
    end = time.time() + 5
    while actual != want and s is not None and time.time() < end:
        time.sleep(0.1)
        lines = s.lines()
        while lines and not lines[-1]:
            lines.pop()
        actual = "".join(l + "\n" for l in lines if l)
    if actual == want:
        return
    # the differing lines first (a CI log keeps only the start of a message),
    # then those lines as tmux gave them, attributes and all, then the screen
    diff = "".join(difflib.unified_diff(want.splitlines(True), actual.splitlines(True),
                                        "expected", "actual", n=0))
    raw = ""
    if s is not None:
        wrong = {l[1:].rstrip("\n") for l in diff.splitlines(True)[2:] if l[:1] == "+"}
        raw = "".join("%2d %r\n" % (i, r) for i, r in enumerate(s.last_raw) if normalise(r) in wrong)
    raise AssertionError("%s differs:\n%s--- those lines raw\n%s--- actual\n%s" % (name, diff, raw, actual))


def mouse(s, x, y, button=0):
    """an xterm (X10) mouse press at column x, row y (0-based), and its release"""
    s.text("\033[M", chr(32 + button), chr(33 + x), chr(33 + y))
    if button < 64:
        s.text("\033[M", chr(32 + 3), chr(33 + x), chr(33 + y))


def session(ctx):
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data"], 100, 24, cwd=ctx.work)
    try:
        # the graph opens with the threads' first frames unfolded one level
        golden("graph-open", s.wait("graph: line 1 of 5"), s)
        s.keys("Down", "Enter")                      # unfold parse
        golden("graph-unfold-parse", s.wait("graph: line 2 of 6"), s)
        s.keys("Down", "Right")                      # unfold helper under parse: its 4 leaf calls
        golden("graph-unfold-helper", s.wait("graph: line 3 of 7"), s)
        s.keys("Left")                               # fold it again
        s.wait("graph: line 3 of 6")
        s.keys("Left")                               # on a folded line: to its caller
        s.wait("graph: line 2 of 6")
        s.keys("c")                                  # fold everything
        golden("graph-fold-all", s.wait("graph: line 1 of 2"), s)
        s.keys("e")                                  # unfold all under main
        golden("graph-unfold-main", s.wait("graph: line 1 of 8"), s)
        s.keys("/", "leaf", "Enter")                 # search: the first leaf path
        s.wait("graph: line 4 of 8")
        s.keys("n")
        s.wait("graph: line 7 of 8")
        s.keys("n")                                  # the third is in the worker's folded tree: unfolded
        golden("graph-search-unfolds", s.wait("graph: line 11 of 11"), s)
        s.keys("n")
        s.wait("search wrapped around")              # on the first again
        s.keys("N")
        s.wait("search wrapped around")              # backwards: the last
        s.keys("N")
        s.wait("graph: line 7 of 11")

        # the report: sorted by calls (ties by name), reversed, by name, by a click on Calls
        s.keys("2")
        lines = s.wait("report: row 1 of 6 functions, by total")
        assert lines[2].endswith("  main"), lines
        s.keys("s", "s")
        golden("report-by-calls", s.wait("report: row 4 of 6 functions, by calls"), s)   # main stays selected
        s.keys("S")
        golden("report-by-calls-reversed", s.wait("report: row 3 of 6 functions, by calls (reversed)"), s)
        s.keys("s", "s", "s", "s")
        golden("report-by-name", s.wait("report: row 4 of 6 functions, by name"), s)
        mouse(s, 30, 1)                              # the Calls header
        s.wait("report: row 4 of 6 functions, by calls")
        mouse(s, 30, 1)                              # again: reversed
        s.wait("report: row 3 of 6 functions, by calls (reversed)")

        # the replay of the main thread, searched
        s.keys("3")
        golden("replay-open", s.wait("replay: thread 1 of 2, line 1 of 23"), s)
        s.keys("/", "leaf", "Enter")
        s.wait("line 4 of 23")
        s.keys("n", "n")
        s.wait("line 8 of 23")
        s.keys("N")
        golden("replay-search", s.wait("line 5 of 23"), s)

        # jumps: the leaf of replay line 5 in the graph and the report, back to the replay
        s.keys("g")
        s.wait("graph: line 4 of 11")
        s.keys("r")
        s.wait("report: row 6 of 6 functions, by calls (reversed)")
        s.keys("p")
        s.wait("replay: thread 1 of 2, line 4 of 23")
        s.keys("2", "Home")
        s.wait("report: row 1 of 6")                 # worker: only on the other thread
        s.keys("p")
        golden("replay-worker", s.wait("replay: thread 2 of 2, line 1 of 13"), s)
        s.keys("/", "parse", "Enter")               # not on this thread: said at once
        s.wait("'parse' matches no line of this thread")
        s.keys("t")
        s.wait("replay: thread 1 of 2, line 1 of 23")

        # a small terminal: the screen follows, the selection stays in sight
        s.keys("End")
        s.wait("line 23 of 23")
        s.resize(50, 10)
        lines = s.wait(lambda lines: len(lines) >= 10 and "1 graph" in lines[0] and
                       lines[9].startswith("replay: thread 1 of 2, line 23"))   # redrawn, not tmux's old rows
        assert len(lines) == 10 and all(len(l) <= 50 for l in lines), lines
        golden("replay-resized", lines[:-1])         # the status line is cut where the tid's digits end
        s.resize(100, 24)
        # tmux tells the program of a new size up to 250 ms later: until the
        # status line is redrawn on the bottom row, keys still meet 50x10
        s.wait(lambda lines: len(lines) >= 24 and lines[23].startswith("replay: thread 1 of 2, line 23 of 23"))

        s.keys("?")
        # the whole box: its first row is drawn before its last
        golden("help", s.wait(lambda lines: any("keys (any key closes this)" in l for l in lines) and
                              any(re.match(r"^ +q +quit$", l) for l in lines)), s)
        s.keys("x")
        s.wait("replay: thread 1")

        # the mouse: a click on the graph's tab, on a line (selects), on it again (folds), the wheel
        mouse(s, 3, 0)
        s.wait("graph: line 4 of 11")
        mouse(s, 40, 2)
        s.wait("graph: line 1 of 11")
        mouse(s, 40, 2)
        golden("graph-mouse-fold", s.wait("graph: line 1 of 5"), s)
        mouse(s, 40, 5, button=65)                   # wheel down (button 5): 3 lines
        s.wait("graph: line 4 of 5")
        mouse(s, 40, 5, button=64)                   # wheel up
        s.wait("graph: line 1 of 5")

        s.keys("q")
        lines = s.wait("exit status")
        assert lines[-1] == "exit status 0", lines
    finally:
        s.close()


def filtered(ctx):
    # -F compute: both threads' compute calls merged on one path; --demangle passes
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data", "-F", "compute", "--demangle", "no"], 100, 24, cwd=ctx.work)
    try:
        s.keys("e")
        golden("filtered-graph", s.wait("graph: line 1 of 3"), s)
        s.keys("2", "s", "s")
        golden("filtered-report", s.wait("report: row 3 of 3 functions, by calls"), s)
        s.keys("3")
        s.wait("replay: thread 1 of 2, line 1 of 11")
        s.keys("q")
        s.wait("exit status 0")
    finally:
        s.close()


def hide_and_callers(ctx):
    # -H helper: its leaf calls hang from parse and compute; -C parse: only the path to parse
    for args, name, status in ((["-H", "helper"], "hide-graph", "graph: line 1 of 7"),
                               (["-C", "parse"], "callers-graph", "graph: line 1 of 2")):
        s = Screen([ctx.fntrace, "tui", "-d", "trace.data"] + args, 100, 24, cwd=ctx.work)
        try:
            s.wait("graph:")
            s.keys("e")
            golden(name, s.wait(status), s)
            s.keys("q")
            s.wait("exit status 0")
        finally:
            s.close()


def colours(ctx):
    """durations coloured by size as in the other views (yellow from 10 us,
    red from 1 ms, magenta from 1 s), none with --color=never"""
    want = {"us": "33", "ms": "31", " s": "35"}
    for args in ([], ["--color=never"]):
        s = Screen([ctx.fntrace, "tui", "-d", "trace.data"] + args, 100, 24, cwd=ctx.work)
        try:
            s.wait("graph:")
            raw = s.raw_lines()
            main = [l for l in raw if l.endswith("main") or "main\033" in l][0]
            plain = re.sub(r"\033\[[0-9;]*m", "", main)
            value, unit = float(plain[2:9]), plain[10:12]
            colour = None if args or (unit == "us" and value < 10) else want[unit]
            got = re.findall(r"\033\[(?:[0-9;]*;)?(3[0-7])m", main)
            assert (got[:1] == [colour]) if colour else not got, (args, repr(main))
            s.keys("q")
            s.wait("exit status 0")
        finally:
            s.close()


def empty_window(ctx):
    # --since after the last call: nothing to show, said on one line after the terminal is restored
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data", "--since", "100s"], 100, 24, cwd=ctx.work)
    try:
        lines = s.wait("exit status")
        assert lines[0] == "fntrace: no call in 'trace.data' passes these filters" and \
            lines[1].startswith("fntrace: warning: the time range selects no call: the calls in 'trace.data' ") and \
            lines[-1] == "exit status 1", lines
    finally:
        s.close()


def check(ctx):
    session(ctx)
    filtered(ctx)
    hide_and_callers(ctx)
    colours(ctx)
    empty_window(ctx)
    # not a terminal: one line, exit 2
    p = ctx.run("tui", "-d", ctx.data)
    assert p.returncode == 2 and p.stdout == "" and p.stderr == (
        "fntrace: tui needs a terminal: standard output is not one (use 'fntrace replay', 'report' or "
        "'graph' for text)\n"), p
    # a terminal for output but not for input (keys could not be read)
    s = Screen(["sh", "-c", "exec '%s' tui -d trace.data < /dev/null" % ctx.fntrace], 200, 10, cwd=ctx.work)
    try:
        lines = s.wait("exit status")
        assert lines[0] == ("fntrace: tui needs a terminal: standard input is not one (use 'fntrace replay', "
                            "'report' or 'graph' for text)") and lines[-1] == "exit status 2", lines
    finally:
        s.close()
    # no trace: the message every reading command gives
    missing = os.path.join(ctx.work, "nosuch.data")
    p = ctx.run("tui", "-d", missing)
    q = ctx.run("replay", "-d", missing)
    assert p.returncode == q.returncode == 1 and p.stderr == q.stderr and "cannot open" in p.stderr, (p, q)
