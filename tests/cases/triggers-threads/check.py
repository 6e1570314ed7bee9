"""Record-time -T, -C, -H and --max-stack in a program of 4 threads (issue
14): exact call counts, the same as the read-time options give on a full
recording; no thread's stream is damaged by the erasures (-C, time=)."""
import os


def check(ctx):
    prog = os.path.join(ctx.builddir, "prog")
    full = os.path.join(ctx.work, "full.data")
    ctx.run("record", "-q", "-d", full, "--", prog, data=False, check=True)
    assert ctx.counts("-d", full) == {"main": 1, "thr": 4, "work": 800, "leaf": 800000, "target": 16}

    cases = (
        (["-C", "target"], {"thr": 4, "target": 16}),
        (["-T", "target@depth=2", "-H", "work"], {"main": 1, "thr": 4, "leaf": 800000, "target": 16}),
        (["-T", "work@time=1s"], {"main": 1, "thr": 4, "target": 16}),
        (["-T", "target@notrace"], {"main": 1, "thr": 4, "work": 784, "leaf": 784000}),
    )
    for opts, want in cases:
        d = os.path.join(ctx.work, "t.data")
        ctx.run("record", "-q", "-d", d, *opts, "--", prog, data=False, check=True)
        p = ctx.run("report", "--format", "csv", "-d", d, check=True)
        assert "could not be decoded" not in p.stderr, (opts, p.stderr)
        assert ctx.counts("-d", d) == want, (opts, ctx.counts("-d", d))
        assert ctx.counts("-d", full, *opts) == want, (opts, "read time", ctx.counts("-d", full, *opts))
    d = os.path.join(ctx.work, "t.data")
    ctx.run("record", "-q", "-d", d, "--max-stack", "3", "--", prog, data=False, check=True)
    assert ctx.counts("-d", d) == {"main": 1, "thr": 4, "work": 800, "leaf": 784000, "target": 16}

    # time= at record time keeps a short call whose subtree outgrew its
    # buffer chunk (16K here; a thread's 200000 calls take about 800K);
    # read with the same -T, the trace shows exactly the long calls
    ctx.run("record", "-q", "-d", d, "--chunk-size", "16K", "-T", "thr@time=10s", "--", prog, data=False,
            check=True)
    kept = ctx.counts("-d", d)
    assert kept["thr"] == 4 and kept["leaf"] == 800000, kept
    assert ctx.counts("-d", d, "-T", "thr@time=10s") == {"main": 1}
