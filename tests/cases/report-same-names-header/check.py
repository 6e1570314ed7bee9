import re


def rows(text, skip):
    return [line.split("  ")[-1].lstrip("|+- ").strip() for line in text.splitlines()[skip:] if line.strip()]


def check(ctx):
    text = ctx.run("report", "-s", "name", check=True).stdout
    twice = sorted(n for n in rows(text, 2) if n.startswith("twice"))
    assert len(twice) == 3 and len(set(twice)) == 3, twice
    for t in twice[:2]:
        assert re.fullmatch(r"twice \[hdr\.h, libhelp\.so\+0x[0-9a-f]+\]", t), twice
    assert twice[2] == "twice [hdr.h, prog]", twice
    calls = {line.split("  ")[-1].strip(): int(line.split()[4]) for line in text.splitlines()[2:] if line.strip()}
    assert calls["twice [hdr.h, prog]"] == 2 and calls[twice[0]] == 1 and calls[twice[1]] == 1, calls
    # the graph tells them apart the same way: each under its caller
    g = ctx.run("graph", "--no-pager", check=True).stdout
    got = rows(g, 3)
    assert got.count("twice [hdr.h, prog]") == 1 and twice[0] in got and twice[1] in got, got
    # the folded export has one path for each
    p = ctx.work + "/out.folded"
    ctx.run("export", "-f", "folded", "-o", p, check=True)
    paths = sorted(l.rsplit(" ", 1)[0] for l in open(p).read().splitlines())
    assert "main;twice [hdr.h, prog]" in paths, paths
    assert len([x for x in paths if x.startswith(("main;help_one;twice [hdr.h, libhelp.so+0x",
                                                    "main;help_two;twice [hdr.h, libhelp.so+0x"))]) == 2, paths
