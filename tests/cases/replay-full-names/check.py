"""--demangle full: a C++ name is its whole signature, so replay adds no
"()" after it (geo::Box<int>::area() const;, D::~D();, n::f(int) {), and
recorded values follow it as "with (...)" (geo::over(int) with (1) = 2;);
the goldens hold replay's lines.  The other modes keep f(values).  The
tui's replay view writes the same lines (tmux)."""
import os
import re
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tmuxscreen import Screen  # noqa: E402


def check(ctx):
    if ctx.build != "gcc-O0":
        return                   # the tui is the same on every build
    want = [l.split("| ", 1)[1] for l in ctx.run("replay", "--no-pager", "--demangle", "full",
                                                 check=True).stdout.splitlines() if "| " in l]
    assert "  geo::over(int) with (1) = 2;" in want and "    geo::Box<int>::area() const;" in want, want
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data", "--demangle", "full"], 100, 24, cwd=ctx.work)
    try:
        s.wait("graph:")
        s.keys("3")
        s.wait("replay: thread 1 of 1, line 1 of %d" % len(want))
        raw = s.raw_lines()
        got = [re.sub(r"\033\[[0-9;]*m", "", l)[26:].rstrip() for l in raw[2:2 + len(want)]]
        assert got == want, got
        s.keys("q")
        s.wait("exit status 0")
    finally:
        s.close()
