"""fntrace tui shows the arguments and return values record -A/-R captured,
and the marks, in the replay view, exactly as `fntrace replay` writes them
(gcd(12, 18) { ... } = 6, /* mark: reported */), on a real terminal (tmux)."""
import os
import re
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from tmuxscreen import Screen


def check(ctx):
    want = [l.split("| ", 1)[1] for l in ctx.run("replay", "--no-pager", check=True).stdout.splitlines()
            if "| " in l]
    assert want == ["main() {", "  gcd(12, 18) {", "    gcd(18, 12) {", "      gcd(12, 6) {",
                    "        gcd(6, 0) = 6;", "      } = 6 /* gcd */", "    } = 6 /* gcd */", "  } = 6 /* gcd */",
                    '  report("gcd", 6) {', "    /* mark: reported */", "  } /* report */", "} /* main */"], want
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data"], 100, 24, cwd=ctx.work)
    try:
        s.wait("graph:")
        s.keys("3")
        s.wait("replay: thread 1 of 1, line 1 of 12")
        raw = s.raw_lines()
        got = [re.sub(r"\033\[[0-9;]*m", "", l)[26:].rstrip() for l in raw[2:14]]
        assert got == want, got
        s.keys("q")
        s.wait("exit status 0")
    finally:
        s.close()
