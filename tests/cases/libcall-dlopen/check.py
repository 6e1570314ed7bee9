def check(ctx):
    assert ctx.record.stdout.splitlines()[-1] == "1 1 same free: 1", ctx.record.stdout
    counts = ctx.counts()
    assert counts.get("plugin_sort") == 2 and counts.get("plugin_cmp", 0) >= 4, counts
    for name in ("malloc", "qsort", "free", "dlopen", "dlclose", "run_plugin"):
        assert counts.get(name) == 2, (name, counts)
    assert counts.get("dlsym") == 3, counts
    # the plugin is recorded twice (two mappings), its calls resolved in both
    info = ctx.run("info", check=True).stdout
    assert info.count("plugin.so") >= 1, info
