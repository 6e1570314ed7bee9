import os


def views(ctx):
    out = []
    for mode in ("short", "full", "simple", "no"):
        out.append(ctx.run("replay", "--srcline", "--demangle", mode, check=True).stdout.splitlines()[1:])
        out[-1] = [l.split("| ", 1)[1] for l in out[-1]]
    out.append(ctx.run("report", "--format", "csv", "-s", "name", check=True).stdout.split("\n")[0])
    rows = ctx.run("report", "--format", "csv", "-s", "name", check=True).stdout.splitlines()
    out.append(sorted(",".join(c for i, c in enumerate(r.split(",")) if i in (0, 1, 7, 9)) for r in rows))
    return out


def check(ctx):
    before = views(ctx)
    short, full = before[0], before[1]
    assert any(l.strip().startswith("geo::Box<int>::area(); [prog.cc:6]") for l in short), short
    assert any(l.strip().startswith("f(); [prog.cc:9]") for l in short), short
    assert any(l.strip().startswith("f(); [prog.cc:10]") for l in short), short
    assert any("_ZNK3geo3BoxIiE4areaEv" in l for l in before[3]), before[3]
    assert any(l.strip().startswith("geo::Box<int>::area() const") for l in full), full
    assert any(r.startswith("f,1,f(int),") and r.endswith("prog.cc") for r in before[5]), before[5]
    assert any(r.startswith("f,1,f(double),") and r.endswith("prog.cc") for r in before[5]), before[5]
    os.unlink(os.path.join(ctx.work, "prog"))
    after = views(ctx)
    assert after == before, (before, after)
