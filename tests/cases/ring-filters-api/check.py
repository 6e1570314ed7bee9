import os, re, subprocess


def record(ctx, name, args, mode):
    d = os.path.join(ctx.work, name)
    p = subprocess.run([ctx.fntrace, "record", "-d", d, *args, "--", os.path.join(ctx.work, "prog"), mode],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return d


def check(ctx):
    # ring + -F + -N + -t: 20000 x work { spin<i%5> } into 2 x 16K chunks, the
    # short tiny() calls erased at every chunk position, noise() never written
    d = record(ctx, "ring", ["--ring", "32K", "-F", "work", "-N", "noise", "-t", "10us"], "ring")
    p = ctx.run("replay", "-d", d, check=True)
    assert re.search(r"^fntrace: note: thread \d+: history starts at .*\(flight recorder of 2 x 16384 bytes\)$",
                     p.stderr, re.M), p.stderr
    assert "damaged" not in p.stderr and "missing" not in p.stderr, p.stderr
    assert "noise" not in p.stdout and "hidden" not in p.stdout and "main" not in p.stdout, p.stdout[:2000]
    seq = []     # (depth, name) of each call opened or leaf, tiny() left out (kept only when preempted)
    for line in p.stdout.splitlines()[1:]:
        m = re.search(r"\| ( *)(\w+)\(\)(;| \{)$", line)
        if m and m.group(2) != "tiny":
            seq.append((len(m.group(1)) // 2, m.group(2)))
    # the history may start inside a work() whose entry was overwritten: its spin<k> comes first
    if seq and seq[0] != (0, "work"):
        assert seq[0][0] == 1 and seq[0][1].startswith("spin"), seq[:3]
        seq = seq[1:]
    # every call after the history start: work at depth 0 holding exactly one spin<k>
    assert len(seq) % 2 == 0 and len(seq) >= 1000, len(seq)
    ks = []
    for j in range(0, len(seq), 2):
        assert seq[j] == (0, "work"), (j, seq[j:j + 2])
        assert seq[j + 1][0] == 1 and seq[j + 1][1].startswith("spin"), (j, seq[j:j + 2])
        ks.append(int(seq[j + 1][1][4:]))
    # a contiguous tail of the iterations, ending with the last one (19999 % 5 == 4)
    assert ks[-1] == 4, ks[-5:]
    for a, b in zip(ks, ks[1:]):
        assert b == (a + 1) % 5, ks
    counts = ctx.counts("-d", d)
    assert counts["work"] >= len(ks) and sum(v for k, v in counts.items() if k.startswith("spin")) >= len(ks), counts
    # the ring file stays at its fixed size: header, 2 chunks of 16K, one meta chunk
    files = [f for f in os.listdir(d) if f.endswith(".fnt")]
    assert len(files) == 1 and os.path.getsize(os.path.join(d, files[0])) == 4096 + 3 * 16384, files

    # fnt_disable() while a -F root returns: outside() after fnt_enable() is
    # outside every -F subtree again and is not recorded
    d = record(ctx, "disable-F", ["-F", "froot"], "disable")
    c = ctx.counts("-d", d)
    assert c == {"froot": 2, "inner": 2}, c
    # while a -N root returns: after() is no longer hidden
    d = record(ctx, "disable-N", ["-N", "nroot"], "disable")
    c = ctx.counts("-d", d)
    assert c.get("after") == 1 and c.get("outside") == 1 and "nroot" not in c and c.get("inner") == 3, c

    # live and replay --follow cannot follow a flight recorder: usage errors
    p = ctx.run("live", "--ring", "64K", "--", os.path.join(ctx.work, "prog"), "disable", data=False)
    assert p.returncode == 2 and "fntrace: option '--ring' is not for live" in p.stderr, (p.returncode, p.stderr)
    ring = os.path.join(ctx.work, "ring")
    p = ctx.run("replay", "--follow", "-d", ring, data=False)
    assert p.returncode == 2 and "cannot be followed" in p.stderr, (p.returncode, p.stderr)
    # record option codes apart: --ring is not --auto-args / --patch / --tid
    p = ctx.run("info", "-d", ring, check=True)
    assert "2 x 16384" in p.stdout or "ring" in p.stdout, p.stdout
    assert "-F work -N noise -t 10us" in p.stdout, p.stdout
