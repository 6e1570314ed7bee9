import json, re
import exportcheck as X


def check(ctx):
    """the child's return from its parent's frame shows its value, in
    replay and in the chrome and perfetto exports"""
    assert sorted(ctx.record.stdout.splitlines()) == ["child spawn=0x1122334455667788", "parent spawn=0x5"], \
        ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    assert re.search(r"\| +\} = 0x5 /\* spawn \*/", out), out
    assert len(re.findall(r"\| +\} = 0x1122334455667788 /\* spawn \(entered before this process began\) \*/",
                          out)) == 1, out
    p = ctx.work + "/out.json"
    ctx.run("export", "-f", "chrome", "-o", p, check=True)
    ev = json.load(open(p))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    orphans = [e for e in ev if e.get("name") == "spawn" and e.get("ph") in ("i", "I")]
    assert [e["args"] for e in orphans] == [{"end": "exit without entry", "retval": "0x1122334455667788"}], orphans
    path = X.export(ctx, "perfetto")
    _, _, _, instants, _, _ = X.load_perfetto(path)
    spawn = [marks for _, name, marks in instants if name == "spawn"]
    assert spawn == [{"retval": "0x1122334455667788"}], instants
