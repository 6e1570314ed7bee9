import collections, re

def check(ctx):
    """every call's values, exactly, though the records cross ~60 chunk ends"""
    total = 0
    for i in range(3000):
        total += 2 + (1 if i % 3 else 68) + (i % 7) + 10 + (i % 4) // 2
    assert ctx.record.stdout == "%d\n" % total, ctx.record.stdout
    out = ctx.run("replay", check=True).stdout.splitlines()
    seen = collections.Counter()
    cut = '"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-+"...'
    for line in out:
        m = re.search(r"\| +(two|ints|half)\((.*)\) = (\S+);$", line)
        if m:
            seen[(m.group(1), m.group(2), m.group(3))] += 1
    want = collections.Counter()
    for i in range(3000):
        long_ = i % 3 == 0
        want[("two", '"n%d", %s' % (i % 10, cut if long_ else '"x"'), str(2 + (68 if long_ else 1)))] += 1
        want[("ints", "%d, %d, %d" % (i, -i, i % 7), str(10 + i % 7))] += 1
        want[("half", str(i % 4), "%g" % ((i % 4) / 2.0))] += 1
    assert seen == want, (sorted((seen - want).items())[:5], sorted((want - seen).items())[:5])
    assert sum(seen.values()) == 9000
