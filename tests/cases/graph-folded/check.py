import os
import re

EXPECTED = os.path.join(os.path.dirname(__file__), "expected")
DURATION = re.compile(r"\d+\.\d{3} (us|ms| s)")


def golden(name, actual):
    if os.environ.get("FNTRACE_UPDATE_GOLDEN"):      # rewrite them from this build
        with open(os.path.join(EXPECTED, name), "w") as f:
            f.write(actual)
    with open(os.path.join(EXPECTED, name)) as f:
        want = f.read()
    assert actual == want, "%s differs:\n--- expected\n%s--- actual\n%s" % (name, want, actual)


def parse_ns(text):
    num, unit = text.split()
    ip, frac = num.split(".")
    scale = {"us": 1000, "ms": 1000000, "s": 1000000000}[unit]
    return int(ip) * scale + int(frac) * scale // 1000


def graph(ctx, *args):
    p = ctx.run("graph", "-d", ctx.data, *args)
    assert p.returncode == 0 and not p.stderr, p
    # durations vary between runs: keep their column, not their digits
    return "".join(DURATION.sub(lambda m: "D".rjust(len(m.group(0))), l) + "\n" for l in p.stdout.splitlines())


def folded(ctx, *args):
    out = os.path.join(ctx.work, "out.folded")
    p = ctx.run("export", "-d", ctx.data, "--format", "folded", "-o", out, *args)
    # the one line export ends with: what it wrote, in which format, how big
    assert p.returncode == 0 and p.stderr == "fntrace: wrote '%s' (folded, %d B)\n" % (out, os.path.getsize(out)), p
    rows = {}
    with open(out) as f:
        for line in f:
            stack, value = line.rstrip("\n").rsplit(" ", 1)
            assert stack not in rows, "stack %r twice" % stack
            rows[stack] = int(value)
    return rows


def check(ctx):
    # graph: the whole tree, under a function (every activation merged), callers, pruning
    golden("graph", graph(ctx))
    golden("graph-work-D2", graph(ctx, "work", "-D", "2"))
    golden("graph-fact", graph(ctx, "fac*"))
    golden("graph-callers-leaf", graph(ctx, "--callers", "leaf"))
    golden("graph-callers-leaf-D3", graph(ctx, "--callers", "leaf", "--depth", "3"))
    golden("graph-min-100pct", graph(ctx, "--min-time", "100%"))
    golden("graph-callers-fact", graph(ctx, "--callers", "fact"))
    # direct recursion is one node (fact called by fact), with the number of
    # calls it made to itself; --no-collapse gives one level per call
    golden("graph-no-collapse", graph(ctx, "--no-collapse"))
    golden("graph-fact-no-collapse", graph(ctx, "fac*", "--no-collapse"))
    golden("graph-callers-fact-no-collapse", graph(ctx, "--callers", "fact", "--no-collapse"))
    # the collapsed fact's total is its outermost call's, as report's total
    p = ctx.run("graph", "-d", ctx.data, check=True)
    line = [l for l in p.stdout.splitlines() if l.endswith("+-fact [recursive: 2 of the calls were made by itself]")]
    assert len(line) == 1, p.stdout
    fact = [r for r in ctx.csv() if r["function"] == "fact"][0]
    unit = {"us": 1, "ms": 1000, " s": 1000000}[line[0][10:12]]    # the printed precision, in ns
    assert abs(parse_ns(line[0][:12]) - int(fact["total_ns"])) < unit, (line, fact)
    assert line[0].split()[4] == "3", line
    # recursion: nested activations of fact share the node fact <- fact, whose
    # total counts the outermost of them only, so no line exceeds the top one
    for collapse in ([], ["--no-collapse"]):
        p = ctx.run("graph", "-d", ctx.data, "--callers", "fact", *collapse, check=True)
        totals = [parse_ns(l[:12]) for l in p.stdout.splitlines()[3:]]
        assert len(totals) == (9 if collapse else 3) and max(totals) == totals[0] > 0, p.stdout
    # every node's time is at least 0 ns: --min-time 0 hides nothing
    assert graph(ctx, "--min-time", "0us") == graph(ctx)

    p = ctx.run("graph", "-d", ctx.data, "nosuch*")
    assert p.returncode == 1 and p.stdout == "" and \
        p.stderr == "fntrace: no function matching 'nosuch*' was called in '%s' (see 'fntrace report' for the names)\n" % ctx.data, p
    p = ctx.run("graph", "-d", ctx.data, "--callers")
    assert p.returncode == 2 and p.stderr.startswith("fntrace: option '--callers' needs a FUNC"), p
    p = ctx.run("graph", "-d", ctx.data, "--min-time", "10 parsecs")
    assert p.returncode == 2 and p.stderr.startswith("fntrace: option '--min-time' takes a duration"), p
    p = ctx.run("graph", "--help")
    assert p.returncode == 0 and "--callers" in p.stdout and "--min-time" in p.stdout, p

    # folded by calls: exact stacks and counts; fact's recursion is one frame
    calls = folded(ctx, "--value", "calls")
    want = {
        "main": 1, "main;work": 1, "main;work;mid": 3, "main;work;mid;leaf": 6,
        "main;work;fact": 3, "main;work;fact;leaf": 1, "main;mid": 1, "main;mid;leaf": 2,
    }
    assert calls == want, calls
    assert folded(ctx, "--value", "calls", "--no-collapse") == {
        "main": 1, "main;work": 1, "main;work;mid": 3, "main;work;mid;leaf": 6,
        "main;work;fact": 1, "main;work;fact;fact": 1, "main;work;fact;fact;fact": 1,
        "main;work;fact;fact;fact;leaf": 1, "main;mid": 1, "main;mid;leaf": 2,
    }
    counts = ctx.counts()
    assert sum(calls.values()) == sum(counts.values()) == 18, (calls, counts)

    # folded by self time: the same stacks (a path whose self time is 0 ns is
    # left out), and the self times add up to the traced time exactly: the
    # inclusive time of the one root call, main, as report gives it
    times = folded(ctx)
    assert set(times) <= set(want) and "main;work;mid;leaf" in times, times
    main_total = int([r for r in ctx.csv() if r["function"] == "main"][0]["total_ns"])
    assert sum(times.values()) == main_total, (sum(times.values()), main_total, times)
    # and per function, the self times add up to report's self column
    for r in ctx.csv():
        s = sum(v for k, v in times.items() if k.split(";")[-1] == r["function"])
        assert s == int(r["self_ns"]), (r, s)

    # -F: stacks start at the filtered function
    assert folded(ctx, "--value", "calls", "-F", "fact") == {"fact": 3, "fact;leaf": 1}
    assert folded(ctx, "--value", "calls", "-F", "fact", "--no-collapse") == {
        "fact": 1, "fact;fact": 1, "fact;fact;fact": 1, "fact;fact;fact;leaf": 1}
