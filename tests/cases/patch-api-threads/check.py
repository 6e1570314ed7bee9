import json

def check(ctx):
    # 100 switches each way, all made; the threads computed the right sums
    assert ctx.record.stdout == "on 100 off 100 results right; with SIGTRAP blocked -1, then 1; blocked by a running thread 0\n", (ctx.record.stdout, ctx.record.stderr)
    out = ctx.run("replay", "--format", "json", check=True).stdout
    calls = [json.loads(l.rstrip(",")) for l in out.splitlines() if l.startswith("{")]
    assert calls, out[:300]
    problems = []
    count = {}
    open_outer = {}
    for c in calls:
        count[c["name"]] = count.get(c["name"], 0) + 1
        if c["end"] != "return":
            problems.append("not returned: %r" % c)
        if c["tid"] == c["pid"]:
            problems.append("main thread traced: %r" % c)   # it only switches; its inner() calls come after
        if c["name"] not in ("worker", "outer", "inner"):
            problems.append("unknown function: %r" % c)
    # proper nesting per thread: each call lies inside the one its depth names
    # (worker is traced when the first switch came before the thread started)
    by_tid = {}
    for c in calls:
        by_tid.setdefault(c["tid"], []).append(c)
    for tid, cs in by_tid.items():
        stack = []
        for c in sorted(cs, key=lambda c: (c["start_ns"], c["depth"])):
            while stack and stack[-1]["end_ns"] < c["start_ns"]:
                stack.pop()
            if len(stack) != c["depth"] or (stack and c["end_ns"] > stack[-1]["end_ns"]):
                problems.append("badly nested: %r under %r" % (c, stack[-1:]))
            stack.append(c)
    assert not problems, "\n".join(problems[:10])
    assert len(by_tid) == 2 and count.get("outer", 0) > 0 and count.get("inner", 0) > 0, (len(by_tid), count)
    # the report agrees: as many calls, each with its exit
    rows = {r["function"]: int(r["calls"]) for r in ctx.csv()}
    assert rows == count, (rows, count)
