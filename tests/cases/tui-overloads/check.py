"""fntrace tui tells overloads apart as report and graph do: by their
signatures, in its graph and in its report (sorted by name too)."""
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tmuxscreen import Screen


def names(lines, skip=2):
    return [l.split("  ")[-1].strip().lstrip("-+ ") for l in lines[skip:-1] if l.strip()]


def check(ctx):
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data"], 100, 24, cwd=ctx.work)
    try:
        got = names(s.wait("graph: line 1 of 3"))
        assert got == ["main", "n::f(int)", "n::f(double)"], got
        s.keys("2")
        got = names(s.wait("report: row 1 of 3 functions, by total"))
        assert sorted(got) == ["main", "n::f(double)", "n::f(int)"], got
        s.keys("s", "s", "s", "s", "s", "s")
        got = names(s.wait("report: row 1 of 3 functions, by name"))
        assert got == ["main", "n::f(double)", "n::f(int)"], got
    finally:
        s.close()
