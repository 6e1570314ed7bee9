import collections, re


def check(ctx):
    """while recording is off, calls with values to capture record nothing"""
    # 3 x ((2 + 3 + (11 + 12 + 10) + 5 + 6) + (3 + 4 + (21 + 22 + 20) + 7 + 8))
    # + (31 + 1) + (33 + 32) + (42 + 1) + (42 + 42)
    assert ctx.record.stdout == "%d\n" % (3 * (2 + 3 + 33 + 5 + 6 + 3 + 4 + 63 + 7 + 8) + 32 + 65 + 43 + 84), \
        ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    # inside()'s exit came while recording was off: it was open when
    # recording went off, and its return is recorded (before, it stayed
    # open until main's exit closed it as unwound); no call lacks its return
    assert "no return" not in out, out
    calls = collections.Counter()
    for line in out.splitlines():
        m = re.search(r"\| +(\w+)(\(.*?\))( = -?\w+)?(;| \{)", line)
        if m and m.group(1) in ("f", "g", "h", "abs", "labs", "inside", "back"):
            calls[m.group(1) + m.group(2) + (m.group(3) or "") + m.group(4)] += 1
    want = collections.Counter({
        # recording on: three rounds of f(2) g(2) h(20) { f(20) g(20) abs(-20) } abs(-7) labs(-8)
        "f(2);": 3, "g() = 4;": 3, "h(20) {": 3, "f(20);": 3, "g() = 22;": 3, "abs(-20);": 3,
        "abs(-7);": 3, "labs() = 8;": 3,
        # inside(30): entered on, its exit off but recorded; f(30) off
        "inside(30);": 1,
        # back(40): entered off, so not it, but g(40) after it turned
        # recording on; then f(41) and labs(-42)
        "g() = 42;": 1, "f(41);": 1, "labs() = 42;": 1,
    })
    assert calls == want, (sorted((calls - want).items()), sorted((want - calls).items()), out)
    # h's exit and return value, after its callees
    assert re.findall(r"\| +\} = (\d+) /\* h \*/", out) == ["63"] * 3, out
