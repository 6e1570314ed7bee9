import json


def check(ctx):
    # text: one row each, told apart by signature or by file
    text = ctx.run("report", "-s", "name", check=True).stdout
    names = [line.split("  ")[-1].strip() for line in text.splitlines()[2:] if line.strip()]
    want = ["help_call", "helper [help.cc]", "helper [prog.cc]", "main", "mk<int>(int, double)", "mk<int>(int, int)",
            "n::f(double)", "n::f(int)"]
    assert sorted(names) == want, names
    calls = {line.split("  ")[-1].strip(): int(line.split()[4]) for line in text.splitlines()[2:] if line.strip()}
    assert calls["n::f(int)"] == 2 and calls["n::f(double)"] == 1, calls
    # csv: the existing columns first, then signature, module and file
    p = ctx.run("report", "--format", "csv", check=True)
    header = p.stdout.splitlines()[0]
    assert header == "function,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,signature,module,file", header
    rows = ctx.csv()
    got = sorted((r["function"], r["calls"], r["signature"], r["module"].rsplit("/", 1)[-1],
                  r["file"].rsplit("/", 1)[-1]) for r in rows)
    assert got == [
        ("help_call", "1", "help_call(int)", "libhelp.so", "help.cc"),
        ("helper", "1", "helper(int)", "libhelp.so", "help.cc"),
        ("helper", "1", "helper(int)", "prog", "prog.cc"),
        ("main", "1", "main", "prog", "prog.cc"),
        ("mk<int>", "1", "Box<int> mk<int>(int, double)", "prog", "prog.cc"),
        ("mk<int>", "1", "Box<int> mk<int>(int, int)", "prog", "prog.cc"),
        ("n::f", "1", "n::f(double)", "prog", "prog.cc"),
        ("n::f", "2", "n::f(int)", "prog", "prog.cc"),
    ], got
    j = json.loads(ctx.run("report", "--format", "json", check=True).stdout)
    fs = sorted((f["function"], f["signature"], f["module"].rsplit("/", 1)[-1], f["file"].rsplit("/", 1)[-1])
                for f in j["functions"])
    assert ("n::f", "n::f(double)", "prog", "prog.cc") in fs and ("helper", "helper(int)", "libhelp.so", "help.cc") in fs, fs
    # graph and the folded export tell them apart the same way
    g = ctx.run("graph", "--no-pager", check=True).stdout
    rows = sorted(l.split("  ")[-1].lstrip("|+- ") for l in g.splitlines()[3:] if l.strip())
    assert rows == ["help_call", "helper [help.cc]", "helper [prog.cc]", "main", "mk<int>(int, double)",
                    "mk<int>(int, int)", "n::f(double)", "n::f(int)"], rows
    p = ctx.work + "/out.folded"
    ctx.run("export", "-f", "folded", "-o", p, check=True)
    paths = sorted(l.rsplit(" ", 1)[0] for l in open(p).read().splitlines())
    assert len(paths) == len(set(paths)) and "main;n::f(int)" in paths and "main;n::f(double)" in paths, paths
    # (weighed by calls: by time, a frame a loaded machine made narrow is
    # left out of the picture, name and all, as flame graphs do)
    for fmt in ("svg", "html"):
        p = ctx.work + "/out." + fmt
        ctx.run("export", "-f", fmt, "--value", "calls", "-o", p, check=True)
        text = open(p, encoding="utf-8").read()
        assert "n::f(int)" in text and "n::f(double)" in text and "helper [prog.cc]" in text, fmt
