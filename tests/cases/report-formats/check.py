import json
def check(ctx):
    rows = ctx.csv("-s", "calls")
    assert [r["function"] for r in rows] == ["often", "sometimes", "main", "slow"], rows
    assert [int(r["calls"]) for r in rows] == [10, 5, 1, 1], rows
    rows = ctx.csv("-s", "name")
    assert [r["function"] for r in rows] == ["main", "often", "slow", "sometimes"], rows
    rows = ctx.csv("-s", "self")
    assert rows[0]["function"] == "slow", rows
    for r in rows:
        assert int(r["min_ns"]) <= int(r["avg_ns"]) <= int(r["max_ns"]), r
        # the mean rounded, not cut (103.73 ns showed as 0.103 us); none of
        # them recurses, so each call's time is in the total
        t, n = int(r["total_ns"]), int(r["calls"])
        assert int(r["avg_ns"]) == (2 * t + n) // (2 * n), r
        assert int(r["self_ns"]) <= int(r["total_ns"]), r
    main = [r for r in rows if r["function"] == "main"][0]
    assert int(main["total_ns"]) >= sum(int(r["total_ns"]) for r in rows if r["function"] in ("slow", "sometimes"))
    js = json.loads(ctx.run("report", "--format", "json", check=True).stdout)
    by = {f["function"]: f for f in js["functions"]}
    assert by["often"]["calls"] == 10 and by["slow"]["calls"] == 1, js
    js = json.loads(ctx.run("report", "--format", "json", "--threads", check=True).stdout)
    assert len(js["threads"]) == 1 and {f["function"] for f in js["threads"][0]["functions"]} == set(by), js
    text = ctx.run("report", check=True).stdout.splitlines()
    assert text[0].split() == ["Total", "time", "Self", "time", "Calls", "Avg", "time", "Min", "time", "Max", "time", "Function"], text
    assert text[2].split()[-1] == "main", text
    p = ctx.run("report", "-s", "bogus")
    assert p.returncode == 2 and "--sort" in p.stderr, p
    p = ctx.run("report", "--format", "xml")
    assert p.returncode == 2 and "--format" in p.stderr, p
