"""record --trace=off starts with recording off; --signal USR1@trace_on
and SIGUSR2@trace_off switch it when the program raises them (issue 14):
only phase two is recorded.  Without --trace=off, USR2@finish stops it
after phase two; USR1@snapshot takes a snapshot; bad options are refused."""
import os


def check(ctx):
    assert ctx.counts() == {"phase_two": 1, "b": 3}, ctx.counts()
    prog = os.path.join(ctx.builddir, "prog")
    d = os.path.join(ctx.work, "finish.data")
    ctx.run("record", "-q", "-d", d, "--signal", "USR1@trace_on", "--signal", "USR2@finish", "--", prog, data=False,
            check=True)
    got = ctx.counts("-d", d)
    assert got["a"] == 3 and got["b"] == 3 and "c" not in got and "phase_three" not in got, got
    # main's return came after the finish (a signal's is trace_off's): main
    # was entered while recording was on, and its return is written (before,
    # "no return: recording was off"; before that, "trace ended")
    text = ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout
    assert text.rstrip().endswith("|   } /* phase_two */\n| } /* main */"), text
    chrome = ctx.run("export", "-d", d, "--format", "chrome", "-o", "-", check=True).stdout
    assert '"end":"recording was off"' not in chrome and chrome.count('"name":"main"') == 2, chrome   # (its B and its E)
    # recorded from its start with recording off: neither main's entry nor
    # its exit, and no call is said to be cut off
    text = ctx.run("replay", "--no-pager", "--fields", "none", check=True).stdout
    assert "main" not in text and "(no return" not in text and "(entered" not in text, text
    d = os.path.join(ctx.work, "snap.data")
    ctx.run("record", "-q", "-d", d, "--signal", "USR1@snapshot", "--signal", "USR2@trace_on", "--", prog,
            data=False, check=True)
    snap = os.path.join(d, "snapshot-signal-1")
    got = ctx.counts("-d", snap)
    assert got.get("a") == 3 and "b" not in got, got
    assert ctx.counts("-d", d)["c"] == 3
    for bad, msg in (("USR1", "takes SIG@ACTION"), ("USR1@fly", "unknown action 'fly'"),
                     ("NOPE@trace_on", "unknown signal 'NOPE'"), ("SEGV@trace_on", "cannot use SEGV")):
        p = ctx.run("record", "-d", os.path.join(ctx.work, "x.data"), "--signal", bad, "--", prog, data=False)
        assert p.returncode == 2 and msg in p.stderr, (bad, p.stderr)
    p = ctx.run("record", "-d", os.path.join(ctx.work, "x.data"), "--trace=maybe", "--", prog, data=False)
    assert p.returncode == 2 and "option '--trace' takes on or off" in p.stderr, p.stderr
