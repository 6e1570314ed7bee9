def check(ctx):
    assert ctx.record.stdout == "atexit handler after 2 comparisons\n", ctx.record.stdout
    counts = ctx.counts()
    assert counts.get("qsort") == 1 and counts.get("cmp_then_exit") == 2, counts
    assert counts.get("bye") == 1 and counts.get("printf") == 1, counts
