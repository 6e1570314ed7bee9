def check(ctx):
    rows = {r["function"]: {k: int(v) for k, v in r.items()
                            if k not in ("function", "signature", "module", "file")} for r in ctx.csv()}
    busy = rows["busy"]["total_ns"]
    assert busy >= 3 * 2000000, rows
    problems = []
    # main ran busy() three times (once itself, once in nested, once in die)
    # before the crash: at least 6 ms inclusive, whatever it is reported as
    one = rows["busy"]["min_ns"]          # die ran one busy() call, nested two
    for fn, least in (("main", busy), ("nested", 2 * one), ("die", one)):
        if rows[fn]["total_ns"] < least:
            problems.append("%s: total_ns %d < %d, the time of what it called" % (fn, rows[fn]["total_ns"], least))
    for fn, r in rows.items():
        if not (0 <= r["self_ns"] <= r["total_ns"]):
            problems.append("%s: self_ns %d outside 0..total_ns %d" % (fn, r["self_ns"], r["total_ns"]))
    assert not problems, "\n".join(problems) + "\n" + repr(rows)
    for fn, r in rows.items():
        if r["calls"] and not (r["min_ns"] <= r["avg_ns"] <= r["max_ns"]):
            problems.append("%s: avg outside min..max" % fn)
    assert not problems, "\n".join(problems)
