import os
import re


def calls(ctx, d):
    p = ctx.run("replay", "-d", d, check=True)
    assert "history starts at" in p.stderr, p.stderr
    assert "damaged" not in p.stderr and "missing" not in p.stderr, p.stderr
    return re.findall(r"\| +(\w+)\(\);$", p.stdout, re.M), p.stdout


def check(ctx):
    assert sorted(d for d in os.listdir(ctx.data) if d.startswith("snapshot-")) == \
        ["snapshot-signal-1", "snapshot-signal-2"], os.listdir(ctx.data)
    # first snapshot: taken right after phase_a, only a() calls, ending with phase_a's return
    s1, out1 = calls(ctx, os.path.join(ctx.data, "snapshot-signal-1"))
    assert len(s1) > 1000 and set(s1) == {"a"}, set(s1)
    # (main, entered before the history start and still running, has no line)
    assert out1.endswith("|   } /* phase_a (entered before the history start) */\n"), out1[-300:]
    # second: phase_b overwrote the whole ring
    s2, out2 = calls(ctx, os.path.join(ctx.data, "snapshot-signal-2"))
    assert len(s2) > 1000 and set(s2) == {"b"}, set(s2)
    # the killed process's own trace: the ring as it was at the kill
    s3, out3 = calls(ctx, ctx.data)
    assert s3[-1] == "c" and set(s3[:-1]) == {"b"}, s3[-3:]
    # the snapshots are files of the same fixed size as the ring trace
    f = [x for x in os.listdir(ctx.data) if x.endswith(".fnt")]
    size = os.path.getsize(os.path.join(ctx.data, f[0]))
    assert os.path.getsize(os.path.join(ctx.data, "snapshot-signal-2", f[0])) == size
    # info says what the files are
    info = ctx.run("info", "-d", ctx.data, check=True).stdout
    assert "  flight recorder: the last 2 chunks of 32768 bytes of each thread\n" in info, info
    assert re.search(r"running at the end, history from \+\d+\.\d{3} [mu]?s\n", info), info
    assert info.endswith("\nsnapshots: 2 (read one with -d %s/NAME)\n  snapshot-signal-1\n  snapshot-signal-2\n"
                         % ctx.data), info[-300:]
    info = ctx.run("info", "-d", os.path.join(ctx.data, "snapshot-signal-1"), check=True).stdout
    assert re.search(r"\n  snapshot: taken at \+\d+\.\d{3} [mu]?s while the process ran\n", info), info
    assert "  ended: not yet (a snapshot of the running process)\n" in info, info
