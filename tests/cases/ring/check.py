import os
import re

N = 100000


def check(ctx):
    files = [f for f in os.listdir(ctx.data) if f.endswith(".fnt")]
    assert len(files) == 1, files
    # fixed size: the header, 2 ring chunks of 32K, one meta chunk
    assert os.path.getsize(os.path.join(ctx.data, files[0])) == 4096 + 3 * 32768, \
        os.path.getsize(os.path.join(ctx.data, files[0]))
    p = ctx.run("replay", check=True)
    assert re.search(r"^fntrace: note: thread \d+: history starts at \d+\.\d{3} [mu]?s; earlier events were "
                     r"overwritten \(flight recorder of 2 x 32768 bytes\)$", p.stderr, re.M), p.stderr
    assert "missing" not in p.stderr and "damaged" not in p.stderr and "could not" not in p.stderr, p.stderr
    calls = re.findall(r"\| +(\w+)\(\);$", p.stdout, re.M)
    lines = p.stdout.splitlines()
    # frames entered before the history start close cleanly, at the right depth
    assert lines[-3].endswith("|   } /* loop (entered before the history start) */"), lines[-3:]
    assert lines[-2].endswith("|   last();"), lines[-3:]
    assert lines[-1].endswith("| } /* main (entered before the history start) */"), lines[-3:]
    assert calls[-1] == "last", calls[-3:]
    body = calls[:-1]
    # the tail may start with the h() of an iteration whose g() was overwritten
    if body[0].startswith("h"):
        body = body[1:]
    assert len(body) % 2 == 0, len(body)
    k = len(body) // 2
    assert 1000 < k < N, k
    first = N - k
    for j in range(k):
        i = first + j
        assert body[2 * j] == "g%d" % (i % 7) and body[2 * j + 1] == "h%d" % (i % 11), \
            (j, i, body[2 * j:2 * j + 2])
    # report agrees: exactly these calls and nothing else
    counts = ctx.counts()
    assert sum(counts.values()) == len(calls) and counts["last"] == 1 and "loop" not in counts, counts
