import os, re, subprocess, time

DUR = re.compile(r"^(?:\s*\d+\.\d{3} (?:us|ms| s)| {11}) \[\s*(\d+)\] \| (.*)$")


def norm(text):
    """durations and tids away; program output (MARKER) dropped"""
    tids, out = {}, []
    for line in text.splitlines():
        m = DUR.match(line)
        if m:
            tids.setdefault(m.group(1), "T%d" % (len(tids) + 1))
            out.append("%s | %s" % (tids[m.group(1)], m.group(2)))
        elif not line.startswith("MARKER"):
            out.append(line)
    return out


def durations(text):
    return [l[:11] for l in text.splitlines() if DUR.match(l) and l[:11].strip()]


def seconds(d):
    v, unit = d.split()
    return float(v) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def timed_lines(proc, t0, go=None):
    """the lines with the time each was read; go: the file to make (the
    program's LIVE_GO) once phase one's end is read"""
    got = []
    for line in proc.stdout:
        got.append((time.monotonic() - t0, line))
        if go and "} /* phase_one */" in line:
            open(go, "w").close()
    return got


def check(ctx):
    prog = os.path.join(ctx.work, "prog")

    # fntrace live: phase one's calls are printed while the program runs,
    # before it prints its marker.  It prints that once this has read them
    # (LIVE_GO, a minute at most: a fixed 1.5 s can run out on a loaded
    # machine)
    d = os.path.join(ctx.work, "live.data")
    go = os.path.join(ctx.work, "live.go")
    t0 = time.monotonic()
    p = subprocess.Popen([ctx.fntrace, "live", "-d", d, "--", prog], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ctx.work, env=dict(os.environ, LIVE_GO=go))
    got = timed_lines(p, t0, go)
    err = p.stderr.read()
    assert p.wait() == 0, (p.returncode, err)
    out = [l for _, l in got]
    marker = out.index("MARKER after phase one\n")
    before = "".join(out[:marker])
    assert "| main() {" in before and before.count("one_leaf();") == 3 and "} /* phase_one */" in before, out
    assert "phase_two" not in before, out
    # everything printed is replay's output (durations aside: early lines use
    # the clock calibration known then, within 0.5 %)
    live_text = "".join(out)
    rep = ctx.run("replay", "-d", d, check=True).stdout
    assert norm(live_text) == norm(rep), (live_text, rep)
    a, b = durations(live_text), durations(rep)
    assert len(a) == len(b) == 14, (a, b)
    for x, y in zip(a, b):
        x, y = seconds(x), seconds(y)
        assert abs(x - y) <= max(0.005 * y, 2e-8), (a, b)

    # fntrace replay --follow on a trace being recorded: ends by itself when
    # the recording is over, same output as replay.  Phase one's end is
    # printed while the program runs: it goes on (LIVE_GO) once this has
    # read it, and naps 0.5 s before its end
    d = os.path.join(ctx.work, "follow.data")
    go = os.path.join(ctx.work, "follow.go")
    t0 = time.monotonic()
    rec = subprocess.Popen([ctx.fntrace, "record", "-d", d, "--", prog], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=ctx.work, env=dict(os.environ, LIVE_GO=go))
    time.sleep(0.1)
    f = subprocess.Popen([ctx.fntrace, "replay", "--follow", "-d", d], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ctx.work)
    got = timed_lines(f, t0, go)
    assert f.wait(timeout=60) == 0, f.stderr.read()
    assert rec.wait() == 0
    end = time.monotonic() - t0
    first_phase = [t for t, l in got if "} /* phase_one */" in l]
    assert first_phase and first_phase[0] < end - 0.5, (first_phase, end)
    rep = ctx.run("replay", "-d", d, check=True).stdout
    assert norm("".join(l for _, l in got)) == norm(rep)

    # live with a record-time filter: only phase two's calls
    d = os.path.join(ctx.work, "live-F.data")
    p = subprocess.run([ctx.fntrace, "live", "-d", d, "-F", "phase_two", "--", prog], capture_output=True,
                       text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    assert norm(p.stdout) == ["# DURATION     TID     FUNCTION", "T1 | phase_two() {", "T1 |   two_leaf();",
                              "T1 |   two_leaf();", "T1 |   two_leaf();", "T1 | } /* phase_two */"], p.stdout

    # replay's display options: --fields, --demangle, --color, --no-pager,
    # the same lines as replay with them; a bad --fields list is a usage
    # error before the program runs
    d = os.path.join(ctx.work, "live-fields.data")
    p = subprocess.run([ctx.fntrace, "live", "-d", d, "--fields", "tid,elapsed", "--demangle=full", "--color",
                        "never", "--no-pager", "-F", "phase_two", "--", prog], capture_output=True, text=True,
                       cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    rep = ctx.run("replay", "-d", d, "--fields", "tid,elapsed", "--demangle", "full", "--no-pager", check=True)
    assert p.stdout.splitlines()[0] == "#    TID     ELAPSED  | FUNCTION", p.stdout
    strip = lambda t: [l[:10] + l[21:] for l in t.splitlines() if not l.startswith("MARKER")]
    assert strip(p.stdout) == strip(rep.stdout) and len(strip(p.stdout)) == 6, (p.stdout, rep.stdout)
    p = subprocess.run([ctx.fntrace, "live", "-d", os.path.join(ctx.work, "bad.data"), "--fields", "bogus", "--",
                        prog], capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 2 and "unknown field 'bogus'" in p.stderr and "MARKER" not in p.stdout, p

    # a program killed by a signal: live dies of it too, as record does
    p = subprocess.run([ctx.fntrace, "live", "-d", os.path.join(ctx.work, "sig.data"), "--", "/bin/sh", "-c",
                        "kill -TERM $$"], capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == -15, (p.returncode, p.stderr)

    # the program's status is passed on; a missing program is 127
    p = subprocess.run([ctx.fntrace, "live", "-d", os.path.join(ctx.work, "x.data"), "--", "/nonexistent"],
                       capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 127 and "cannot run" in p.stderr, p
