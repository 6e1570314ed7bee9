import os
import re


def check(ctx):
    check_trace(ctx, [])
    # the same with the runtime's helper thread (spare chunks prepared ahead,
    # taken by whichever thread fills its chunk) and without it (every thread
    # maps its chunks itself); by default it depends on the number of CPUs
    for v in ("1", "0"):
        d = os.path.join(ctx.work, "prefault-%s.data" % v)
        env = dict(os.environ, FNTRACE_PREFAULT=v)
        env.pop("LD_PRELOAD", None)
        p = ctx.run("record", "-d", d, "--chunk-size", "16K", "--", os.path.join(ctx.work, "prog"), data=False, env=env)
        assert p.returncode == 0, p
        check_trace(ctx, ["-d", d])


def check_trace(ctx, data):
    per = {}
    for r in ctx.csv("--threads", *data):
        per.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
    assert len(per) == 47, len(per)
    busy = sorted((d for d in per.values() if "busy" in d), key=lambda d: d["top"])
    assert [d["top"] for d in busy] == [5000 * n for n in range(1, 7)], busy
    for d in busy:
        assert d == {"busy": 1, "top": d["top"], "mid": d["top"], "leaf": 2 * d["top"]}, d
    brief = [d for d in per.values() if "brief" in d]
    assert len(brief) == 40 and all(d == {"brief": 1, "leaf": 1} for d in brief), brief
    info = ctx.run("info", *data, check=True).stdout
    assert re.search(r"^lost: 0$", info, re.M) and re.search(r"^\s+threads: 47$", info, re.M), info
    for n in range(1, 7):
        assert re.search(r"^\s+\d+\s+busy-%d\s+%d\s" % (n, 2 + 5000 * n * 8), info, re.M), (n, info)
    # every thread's stream is balanced: no frame left open, no exit without entry
    p = ctx.run("replay", *data, check=True)
    assert p.stderr == "", p.stderr
    assert "no return" not in p.stdout
    depth = {}
    for l in p.stdout.splitlines()[1:]:
        tid, body = re.match(r"^.{12}\[\s*(\d+)\] \| (.*)$", l).groups()
        ind = (len(body) - len(body.lstrip())) // 2
        d = depth.get(tid, 0)
        if body.endswith("{"):
            assert ind == d, l
            depth[tid] = d + 1
        elif body.lstrip().startswith("}"):
            assert ind == d - 1, l
            depth[tid] = d - 1
        else:
            assert ind == d, l
    assert all(v == 0 for v in depth.values()), depth
