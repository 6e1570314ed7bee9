import os
import re


def check(ctx):
    assert ctx.record.stdout == "", ctx.record.stdout          # every fnt_snapshot() returned 0
    snaps = sorted(d for d in os.listdir(ctx.data) if d.startswith("snapshot-"))
    assert snaps == ["snapshot-s%02d" % k for k in range(10)], snaps
    complete = 0
    seen = set()
    for s in snaps:
        d = os.path.join(ctx.data, s)
        p = ctx.run("replay", "-d", d, check=True)
        # only the notes on where each thread's history starts, no missing
        # chunk, and no damage beyond one torn event per writing thread (the
        # event a worker was storing when the copy passed its position)
        other = []
        for l in p.stderr.splitlines():
            m = re.search(r": (\d+) bytes? of event data could not be decoded", l)
            if "history starts at" in l or (m and int(m.group(1)) <= 3 * 9):
                continue
            other.append(l)
        assert not other, (s, other)
        assert "unwound" not in p.stdout, s
        # g calls f twice: in each worker's window, f is 2 g, up to the calls cut at both ends
        lines = p.stdout.splitlines()
        by_tid = {}
        for l in lines:
            m = re.match(r"^.{11} \[\s*(\d+)\] \| +(\w+)\(\)", l)
            if m:
                by_tid.setdefault(m.group(1), []).append(m.group(2))
        # a worker whose whole ring turned over while the snapshot was being
        # copied (this machine may stop the copying thread for milliseconds)
        # is left out, never shown half old, half new
        workers = [v for v in by_tid.values() if "f" in v]
        seen.update(t for t, v in by_tid.items() if "f" in v)
        complete += len(workers) == 3
        for calls in workers:
            nf, ng = calls.count("f"), calls.count("g")
            assert nf > 100 and abs(nf - 2 * ng) <= 4, (s, nf, ng)
    assert complete >= 1 and len(seen) == 3, (complete, seen)
