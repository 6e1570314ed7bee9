import os
import re
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import exportcheck as X

PHASE = {"phase1": {"phase1": 1, "a": 5}, "phase2": {"phase2": 1, "b": 7}, "phase3": {"phase3": 1, "c": 3}}


def expect(*phases):
    out = {"main": 1}         # main runs through every window
    for p in phases:
        out.update(PHASE[p])
    return out


def check(ctx):
    # the phases' times, from the unfiltered export
    slices, _, _, _ = X.chrome_threads(X.load_chrome(X.export(ctx, "chrome")))
    (sl,) = slices.values()
    span = {s[2]: (s[0], s[1]) for s in sl if s[2].startswith("phase")}
    gap1 = (span["phase1"][1] + span["phase2"][0]) // 2     # 50 ms from either phase
    gap2 = (span["phase2"][1] + span["phase3"][0]) // 2
    assert span["phase2"][0] - span["phase1"][1] > 90 * 10**6, span
    b4 = sorted(s[0] for s in sl if s[2] == "b")[3]
    b_from4 = len([s for s in sl if s[2] == "b" and s[1] >= b4])
    assert b_from4 in (4, 5), sl
    us = lambda ns: "%dus" % (ns // 1000)
    ms = lambda ns: "%.3fms" % (ns // 1000 / 1000)           # a decimal with its unit
    cases = [
        (["--since", us(gap1)], expect("phase2", "phase3")),
        (["--until", ms(gap1)], expect("phase1")),
        (["--since", us(gap1), "--until", us(gap2)], expect("phase2")),
        (["--since", "%dns" % gap1, "--until", "%dns" % (gap1 + 1000)], expect()),
        # a window inside phase2 keeps phase2 whole (overlap, not clipped) but
        # only the b() calls that overlap it: the ones from the 4th on, and
        # the 3rd too when it ended at the very ns the 4th began (a call
        # overlaps when its end >= since: clang -O2 did so under load)
        (["--since", "%dns" % b4], None),
        (["--since", "0s", "--until", "1000s"], expect("phase1", "phase2", "phase3")),
    ]
    for args, want in cases:
        got = ctx.counts(*args)
        if want is None:
            assert got == {"main": 1, "phase2": 1, "b": b_from4, "phase3": 1, "c": 3}, (got, b_from4)
            want = got
        assert got == want, (args, got, want)
        # export applies the same window, and its slices are unclipped
        ch = X.chrome_threads(X.load_chrome(X.export(ctx, "chrome", *args)))[0]
        assert {k: v[0] for k, v in X.profile(ch).items()} == want, (args, ch)
        for s in (ch and list(ch.values())[0]):
            assert (s[0], s[1]) == next((t[0], t[1]) for t in sl if t[2] == s[2] and t[0] == s[0]), s
        pf = X.load_perfetto(X.export(ctx, "perfetto", *args))[0]
        assert {k: v[0] for k, v in X.profile(pf).items()} == want, (args, pf)
        # and so does replay: the same calls, whole
        out = ctx.run("replay", *args, check=True).stdout
        names = re.findall(r"\| +(\w+)\(\)", out)
        assert sorted(names) == sorted(n for n, k in want.items() for _ in range(k)), (args, out)
    # the report's totals cover the calls whole: main's total is the same in every window
    full = X.report_profile(ctx)
    assert X.report_profile(ctx, "--since", us(gap1))["main"][1] == full["main"][1]
    # bad values are usage errors
    for args in (["--since", "5"], ["--since", "1.5 ms"], ["--until", "ms"], ["--since", "2ms", "--until", "1ms"]):
        for cmd in ("replay", "report"):
            p = ctx.run(cmd, *args)
            assert p.returncode == 2 and p.stderr.startswith("fntrace: option '--"), (cmd, args, p.stderr)
        p = ctx.run("export", "-d", ctx.data, "-f", "chrome", "-o", os.path.join(ctx.work, "bad.json"), *args)
        assert p.returncode == 2 and not os.path.exists(os.path.join(ctx.work, "bad.json")), p
