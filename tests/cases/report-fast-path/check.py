def check(ctx):
    counts = ctx.counts()
    want = {"main": 1, "worker": 1, "rec": 10 * 11 + 100 * 6, "leaf": 10 * 10 + 100 * 5,
            "even": 10 * 4, "odd": 10 * 4, "deep": 5, "spawn": 1}
    for fn, n in want.items():
        assert counts.get(fn) == n, "%s: %r calls, want %d\n%r" % (fn, counts.get(fn), n, counts)
    # the unfiltered report and the call layer's (-D deeper than any call)
    # agree byte for byte, in every format and per thread
    for args in ([], ["--threads"], ["--format", "csv"], ["--format", "csv", "--threads"],
                 ["--format", "json", "--threads"], ["-s", "calls"], ["-s", "self"]):
        fast = ctx.run("report", *args, check=True).stdout
        layered = ctx.run("report", "-D", "100000", *args, check=True).stdout
        assert fast == layered, "report %s differs from report -D 100000 %s:\n%s\n----\n%s" % (
            " ".join(args), " ".join(args), fast, layered)
    # recursion counts each outermost call once: rec's total is within
    # main's and worker's, never above the sum of its calls' times
    rows = {r["function"]: {k: int(v) for k, v in r.items()
                            if k not in ("function", "signature", "module", "file")} for r in ctx.csv()}
    rec = rows["rec"]
    assert rec["total_ns"] <= rows["main"]["total_ns"] + rows["worker"]["total_ns"], rows
    assert rec["min_ns"] <= rec["avg_ns"] <= rec["max_ns"], rec
    # the child (exits only) gets no table of its own: parent's two threads only
    text = ctx.run("report", "--threads", check=True).stdout
    assert text.count("# thread ") == 2, text
    assert len({r["tid"] for r in ctx.csv("--threads")}) == 2, ctx.csv("--threads")
