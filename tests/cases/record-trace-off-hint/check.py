"""record --trace=off of a program that nothing switches on records no
event, as it should; record said "was './prog' built with
-finstrument-functions?", blaming a build that is fine.  It says that
recording started off and what turns it on."""
import os


def check(ctx):
    assert ctx.counts() == {"main": 1, "work": 1}, ctx.counts()
    prog = os.path.join(ctx.builddir, "prog")
    d = os.path.join(ctx.work, "off.data")
    p = ctx.run("record", "-d", d, "--trace=off", "--", prog, data=False)
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert "built with" not in p.stderr, p.stderr
    assert ("no function events were recorded: recording started off (--trace=off) and nothing turned it on"
            in p.stderr), p.stderr
    # a trigger that turns it on: recorded, no such line
    d = os.path.join(ctx.work, "on.data")
    p = ctx.run("record", "-d", d, "--trace=off", "-T", "work@trace_on", "--", prog, data=False, check=True)
    assert "no function events" not in p.stderr, p.stderr
    assert ctx.counts("-d", d) == {"work": 1}, ctx.counts("-d", d)
