def check(ctx):
    assert ctx.record.stdout == "-1 -1\n", ctx.record.stdout
    counts = ctx.counts()
    assert counts.get("probe") == 2 and counts.get("report") == 1 and counts.get("printf") == 1, counts
    assert counts.get("std::locale::locale") == 3 and counts.get("probe_deep") == 1, counts
