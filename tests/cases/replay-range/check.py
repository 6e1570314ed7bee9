"""replay -r START~END (issue 14): the replay cut to the window.  Calls open
at START are opening lines, calls still open at END have no closing line,
every call inside is shown, nothing outside; START and END as offsets
(10ms) or as the wall-clock times that --fields time prints give the same
lines."""
import json


def ms(ns):
    return "%d.%06dms" % (ns // 1000000, ns % 1000000)


def check(ctx):
    calls = [json.loads(l) for l in ctx.run("replay", "-f", "json", check=True).stdout.splitlines()]
    steps = sorted((c for c in calls if c["name"] == "step"), key=lambda c: c["start_ns"])
    assert len(steps) == 300, len(steps)
    # the window: from the middle of step 100 to the middle of step 200
    s0 = (steps[100]["start_ns"] + steps[100]["end_ns"]) // 2
    s1 = (steps[200]["start_ns"] + steps[200]["end_ns"]) // 2
    out = ctx.run("replay", "-r", "%s~%s" % (ms(s0), ms(s1)), "--fields", "none", check=True).stdout.splitlines()
    body = [l[2:] for l in out[1:]]
    # open at START: main, outer, step 100 (and its leaf, if START falls in one): opening lines, in order
    open_at_start = sorted((c for c in calls if c["start_ns"] < s0 < c["end_ns"]), key=lambda c: c["start_ns"])
    # (the innermost one is a one-line "leaf();" when START falls inside a
    # leaf call, which ends inside the window with nothing under it)
    want = ["%s() {" % c["name"] for c in open_at_start]
    got = [l.strip() for l in body[:len(open_at_start)]]
    if open_at_start and open_at_start[-1]["end_ns"] <= s1 and got[-1:] == ["%s();" % open_at_start[-1]["name"]]:
        want[-1] = got[-1]
    assert got == want, body[:5]
    # every call that ends in the window: a leaf line for each leaf, a closing line for each step
    ended = lambda name: sum(1 for c in calls if c["name"] == name and s0 <= c["end_ns"] <= s1)
    n = sum(1 for l in body if l.strip() == "leaf();")
    assert n == ended("leaf"), (n, ended("leaf"))
    n = sum(1 for l in body if l.strip() == "} /* step */")
    assert n == ended("step"), (n, ended("step"))
    # nothing closes after END: outer and main stay open, step 200 too
    assert not any("/* outer */" in l or "/* main */" in l for l in body), body[-3:]
    last = body[-1].strip()
    assert last in ("step() {", "leaf() {", "leaf();"), body[-4:]

    # --format json with the same window: the same calls, those open at END
    # "open" with END as their end (they ran past it), none ending after it
    cut = [json.loads(l) for l in
           ctx.run("replay", "-r", "%s~%s" % (ms(s0), ms(s1)), "-f", "json", check=True).stdout.splitlines()]
    assert all(c["end_ns"] <= s1 for c in cut), [c for c in cut if c["end_ns"] > s1][:3]
    key = lambda c: (c["tid"], c["name"], c["start_ns"])
    whole = {key(c): c for c in calls}
    for c in cut:
        w = whole[key(c)]
        if w["end_ns"] > s1:
            assert c["end"] == "open" and c["end_ns"] == s1 and "retval" not in c, (c, w)
        else:
            assert c == w, (c, w)
    assert sorted(key(c) for c in cut) == sorted(key(c) for c in calls if c["start_ns"] <= s1 and c["end_ns"] >= s0)
    assert {c["name"] for c in cut if c["end"] == "open"} >= {"main", "outer"}, cut[-3:]

    # the same cut by wall-clock times, as --fields time prints them: the
    # leaf lines are exactly the full replay's between those two times
    timed = [l for l in ctx.run("replay", "--fields", "time", check=True).stdout.splitlines()[1:]]
    a, b = timed[len(timed) // 3][:18], timed[2 * len(timed) // 3][:18]
    cut = ctx.run("replay", "-r", "%s~%s" % (a, b), "--fields", "time", check=True).stdout.splitlines()[1:]
    leaves = lambda ls: [l for l in ls if l.endswith("leaf();")]
    want = [l for l in leaves(timed) if a <= l[:18] <= b]
    assert leaves(cut) == want and len(want) > 50, (len(leaves(cut)), len(want))
    assert all(l[:18] >= a for l in cut if not l.endswith("{")), cut[:3]
    assert all(l[:18] <= b for l in cut), cut[-3:]

    for bad, msg in (("10ms", "takes START~END"), ("5ms~1ms", "END is before START"), ("x~y", "takes START~END")):
        p = ctx.run("replay", "-r", bad)
        assert p.returncode == 2 and "'-r/--time-range'" in p.stderr and msg in p.stderr, (bad, p.stderr)
    p = ctx.run("replay", "-r", "1ms~2ms", "--since", "1ms")
    assert p.returncode == 2 and "use one or the other" in p.stderr, p.stderr
