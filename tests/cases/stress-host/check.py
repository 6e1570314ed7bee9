import re
def check(ctx):
    ticks = int(re.search(r"ticks (\d+)", ctx.record.stdout).group(1))
    info = ctx.run("info", check=True).stdout
    assert "processes: 21" in info, info
    assert "damage" not in info, info
    rows = ctx.csv("--threads")
    child = [r for r in rows if r["function"] == "child"]
    assert len(child) == 20 and all(r["calls"] == "1" for r in child), child
    # each forked child: exactly 100 calls of work
    by_tid = {}
    for r in rows:
        by_tid.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
    kids = [t for t, f in by_tid.items() if "child" in f]
    assert all(by_tid[t]["work"] == 100 for t in kids), [by_tid[t] for t in kids]
    # the busy threads: 200000 each, plus the ticks handled on them; nothing lost
    # but the events of handlers that interrupted a hook (counted, not silent)
    m = re.search(r"^lost: (\d+)$", info, re.M)
    lost = int(m.group(1))
    total_work = sum(f.get("work", 0) for f in by_tid.values())
    handled = sum(f.get("on_tick", 0) for f in by_tid.values())
    assert total_work == 3 * 200000 + 20 * 100 + handled, (total_work, handled, ticks, lost)
    # a handler run either records its 4 events (on_tick, work) or, when it
    # interrupted a hook, loses all 4 and counts them
    assert lost % 4 == 0 and handled + lost // 4 == ticks, (handled, ticks, lost)
    assert sum(f.get("plugin_entry", 0) for f in by_tid.values()) >= 1
