"""replay --time: the wall-clock column is named in the header (it printed
the default '# DURATION     TID     FUNCTION' over lines that start with a
time), and --time goes with --fields (it was dropped without a word when
--fields was given): --time is --fields time,duration,tid, and with
--fields LIST it puts time in front of LIST."""
import re

TIME = r"\d\d:\d\d:\d\d\.\d{9}"


def check(ctx):
    timed = ctx.run("replay", "--time", check=True).stdout.splitlines()
    same = ctx.run("replay", "--fields", "time,duration,tid", check=True).stdout.splitlines()
    assert timed == same, (timed[:3], same[:3])
    assert re.match(r"^#\s+TIME\s+DURATION\s+TID\s+\| FUNCTION$", timed[0]), timed[0]
    assert len(timed) > 3 and all(re.match("^" + TIME + " ", l) for l in timed[1:]), timed[:3]

    out = ctx.run("replay", "--time", "--fields", "tid", check=True).stdout.splitlines()
    assert re.match(r"^#\s+TIME\s+TID\s+\| FUNCTION$", out[0]), out[0]
    assert all(re.match("^" + TIME + r" \[\s*\d+\] \| ", l) for l in out[1:]), out[:3]

    out = ctx.run("replay", "--time", "--fields", "none", check=True).stdout.splitlines()
    assert re.match(r"^#\s+TIME\s+\| FUNCTION$", out[0]), out[0]
    assert all(re.match("^" + TIME + r" \| ", l) for l in out[1:]), out[:3]

    # time already in the list: left where it is, not twice
    a = ctx.run("replay", "--time", "--fields", "elapsed,time", check=True).stdout
    b = ctx.run("replay", "--fields", "elapsed,time", check=True).stdout
    assert a == b
