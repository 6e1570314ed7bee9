import os, re, subprocess

def lost_line(info):
    m = re.search(r"^  lost: (\d+) in signal handlers, (\d+) for lack of space, (?:(\d+) deeper than the shadow "
                  r"stack, )?(\d+) module records$", info, re.M)
    assert m, info
    return [int(x or 0) for x in m.groups()]

def check(ctx):
    # signals: each handler call is on_signal + leaf, 4 events; a handler
    # whose calls were dropped counts all 4 as lost in signal handlers
    m = re.match(r"handled (\d+) calls (\d+)\n$", ctx.record.stdout)
    assert m, ctx.record.stdout
    handled, calls = int(m.group(1)), int(m.group(2))
    counts = ctx.counts()
    traced = counts.get("on_signal", 0)
    assert counts["leaf"] == calls + traced, (counts, calls)
    info = ctx.run("info", check=True).stdout
    reentrant, nospace, shadow, meta = lost_line(info)
    assert (nospace, shadow) == (0, 0), info
    assert reentrant == 4 * (handled - traced), (reentrant, handled, traced)
    assert reentrant > 0, "no signal landed inside a hook: the test proved nothing"
    assert re.search(r"^lost: %d$" % reentrant, info, re.M), info
    # shadow stack of 100 frames: main and 99 down() are traced, the 202
    # deeper calls (down(300) .. down(0) are 301) are lost, 404 events, counted in the summary too
    d = os.path.join(ctx.work, "deep.data")
    env = dict(os.environ, FNTRACE_SHADOW_DEPTH="100")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", os.path.join(ctx.work, "prog"), "deep"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and p.stdout == "300\n", (p.returncode, p.stdout, p.stderr)
    counts = ctx.counts("-d", d)
    assert counts == {"main": 1, "down": 99}, counts
    info = ctx.run("info", "-d", d, check=True).stdout
    assert lost_line(info)[:3] == [0, 0, 404], info
    assert re.search(r"^lost: 404$", info, re.M), info
    assert re.search(r"^ +\d+ +prog +\d+ +exited, 404 lost$", info, re.M), info
