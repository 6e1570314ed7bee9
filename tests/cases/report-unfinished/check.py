def check(ctx):
    rows = {r["function"]: {k: int(v) for k, v in r.items() if k != "function"} for r in ctx.csv()}
    busy = rows["busy"]["total_ns"]
    assert busy >= 3 * 2000000, rows
    problems = []
    # main ran busy() three times (once itself, once in nested, once in die)
    # before the crash: at least 6 ms inclusive, whatever it is reported as
    for fn, least in (("main", busy), ("nested", busy * 2 // 3), ("die", busy // 3)):
        if rows[fn]["total_ns"] < least:
            problems.append("%s: total_ns %d < %d, the time of what it called" % (fn, rows[fn]["total_ns"], least))
    for fn, r in rows.items():
        if not (0 <= r["self_ns"] <= r["total_ns"]):
            problems.append("%s: self_ns %d outside 0..total_ns %d" % (fn, r["self_ns"], r["total_ns"]))
    assert not problems, "\n".join(problems) + "\n" + repr(rows)
