import os
import re


def check(ctx):
    assert ctx.record.stdout == "", ctx.record.stdout          # every fnt_snapshot() returned 0
    snaps = sorted(d for d in os.listdir(ctx.data) if d.startswith("snapshot-"))
    assert snaps == ["snapshot-s%02d" % k for k in range(20)], snaps
    for s in snaps:
        d = os.path.join(ctx.data, s)
        rows = ctx.csv("-d", d, "--threads")
        p = ctx.run("replay", "-d", d, check=True)
        # only the notes on where each thread's history starts: no damage, no missing chunk
        other = [l for l in p.stderr.splitlines() if "history starts at" not in l]
        assert not other, (s, other)
        assert "unwound" not in p.stdout, s
        # g calls f twice: in each worker's window, f is 2 g, up to the calls cut at both ends
        lines = p.stdout.splitlines()
        by_tid = {}
        for l in lines:
            m = re.match(r"^.{11} \[\s*(\d+)\] \| +(\w+)\(\)", l)
            if m:
                by_tid.setdefault(m.group(1), []).append(m.group(2))
        workers = [v for v in by_tid.values() if "f" in v]
        assert len(workers) == 3, (s, list(by_tid))
        for calls in workers:
            nf, ng = calls.count("f"), calls.count("g")
            assert nf > 100 and abs(nf - 2 * ng) <= 4, (s, nf, ng)
