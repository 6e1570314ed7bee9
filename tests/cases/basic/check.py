import re, time
def check(ctx):
    # --time: each line starts with the local wall-clock time of the event
    p = ctx.run("replay", "--time", check=True)
    lines = p.stdout.splitlines()[1:]
    now = time.localtime()
    for l in lines:
        m = re.match(r"^(\d\d):(\d\d):(\d\d)\.(\d{9}) ", l)
        assert m, l
        secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
        ref = now.tm_hour * 3600 + now.tm_min * 60 + now.tm_sec
        assert (ref - secs) % 86400 < 120, (l, now)
    stamps = [l[:18] for l in lines]
    assert stamps == sorted(stamps), stamps
