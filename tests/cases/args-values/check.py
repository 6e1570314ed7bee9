import os, re, subprocess

def check(ctx):
    # the pointer (the program printed it): a static variable of the program,
    # so it is named, argument and return value
    assert re.search(r"^ptr 0x[0-9a-f]+$", ctx.record.stdout, re.M), ctx.record.stdout
    out = ctx.run("replay", "-F", "where", check=True).stdout
    assert re.search(r"\| where\(&sink\) = &sink;$", out, re.M), out
    # -A on a -finstrument-functions build: a clear usage error naming the flags that can
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    exe = os.path.join(ctx.work, "prog-cyg")
    subprocess.run([cc, "-finstrument-functions", "-O" + ctx.opt[1:], "-o", exe,
                    os.path.join(os.path.dirname(__file__), "prog.c")], check=True)
    p = ctx.run("record", "-d", os.path.join(ctx.work, "cyg.data"), "-A", "add@arg1", "--", exe, data=False)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "-finstrument-functions" in p.stderr and "-pg -mfentry" in p.stderr, p.stderr
    # a bad item is a usage error naming it
    p = ctx.run("record", "-A", "add@arg1/q", "--", exe, data=False)
    assert p.returncode == 2 and "item 1 of 'arg1/q'" in p.stderr, p.stderr
    p = ctx.run("record", "-R", "add@arg1", "--", exe, data=False)
    assert p.returncode == 2 and "retval" in p.stderr, p.stderr
    # globs that name no function: a warning (before: nothing at all, and
    # no values); one that names a function: none
    prog = os.path.join(ctx.builddir, "prog")
    p = ctx.run("record", "-q", "-d", os.path.join(ctx.work, "none.data"), "-A", "nosuch@arg1", "-R", "nix*@retval",
                "--", prog, data=False, check=True)
    assert p.stderr == "fntrace: warning: -A/-R: no values were recorded: 'nosuch@arg1', 'nix*@retval' " \
        "matched no function that can show them (one built with -pg -mfentry or patchable entries, or a " \
        "library call), as 'fntrace report' names functions\n", p.stderr
    p = ctx.run("record", "-q", "-d", os.path.join(ctx.work, "one.data"), "-A", "nosuch@arg1", "-R", "add@retval",
                "--", prog, data=False, check=True)
    assert "warning" not in p.stderr, p.stderr

    # the exports carry the values: chrome "args", perfetto debug annotations
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    import exportcheck as X
    events = [e for e in X.load_chrome(X.export(ctx, "chrome")) if e["ph"] in "BE"]
    seen = []
    for i, e in enumerate(events):
        if e["ph"] == "B" and e["name"] in ("add", "count"):
            assert events[i + 1]["ph"] == "E", events[i + 1]
            seen.append((e["name"], events[i + 1]["args"]["args"], events[i + 1]["args"]["retval"]))
    assert seen[:4] == [("add", "12, 18", "30"), ("add", "-5, -7", "-12"),
                        ("count", 's="world", times=3', "15"), ("count", "s=NULL, times=0", "0")], seen
    path = X.export(ctx, "perfetto")
    X.load_perfetto(path)           # valid, nested
    notes = []
    with open(path, "rb") as f:
        for _, pkt in X.fields(f.read()):
            te = X.one(X.fields(pkt), 11)
            for k, v in X.fields(te) if te is not None else []:
                if k == 4:
                    da = X.fields(v)
                    notes.append((X.one(da, 10).decode(), X.one(da, 6).decode()))
    for want in [("args", "12, 18"), ("retval", "30"), ("args", 's="world", times=3'), ("retval", "{...}"),
                 ("args", "2.5, 1.5")]:
        assert want in notes, (want, notes)
