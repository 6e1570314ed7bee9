import re

N = 100000


def check(ctx):
    # --ring with -A and -t (a threshold every call passes: the -t bookkeeping
    # runs at every entry, nothing is erased) on a -pg -mfentry build
    p = ctx.run("replay", check=True)
    assert re.search(r"^fntrace: note: thread \d+: history starts at .*\(flight recorder of 2 x 32768 bytes\)$",
                     p.stderr, re.M), p.stderr
    assert "damaged" not in p.stderr and "missing" not in p.stderr, p.stderr
    calls = re.findall(r"\| +(\w+)\((\d+)\);$", p.stdout, re.M)
    assert calls[-1] == ("h%d" % ((N - 1) % 11), str(N - 1)), calls[-3:]
    assert p.stdout.splitlines()[-2].endswith("|   last();"), p.stdout.splitlines()[-3:]
    body = [(n, int(a)) for n, a in calls]
    if body[0][0].startswith("h"):
        body = body[1:]
    assert len(body) % 2 == 0 and len(body) > 1000, len(body)
    first = body[0][1]
    for j in range(0, len(body), 2):
        i = first + j // 2
        assert body[j] == ("g%d" % (i % 7), i) and body[j + 1] == ("h%d" % (i % 11), i), (j, i, body[j:j + 2])
    assert first + len(body) // 2 == N, (first, len(body))
