import os
import re
import shutil

JUMPS = 200
CALLS = 2000000


def graph_rows(ctx, d):
    """graph's rows: (calls, indentation prefix, name, the rest)"""
    rows = []
    for line in ctx.run("graph", "-d", d, check=True).stdout.splitlines():
        m = re.match(r"^\s*\d+\.\d{3} +\S+ +\d+\.\d{3} +\S+ +(\d+)  ((?:\|  |   )*(?:\+-)?)(\S+)(.*)$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2), m.group(3), m.group(4)))
    return rows


def check_trace(ctx, d, funcs):
    """funcs: {name: fewest calls}; each is entered at most JUMPS more
    times, at depth 1 (main's callee) and nowhere else, and the trace has
    no loss but the handler's calls that landed in a hook"""
    counts = ctx.counts("-d", d)
    total = 0
    for f, least in funcs.items():
        n = counts.get(f, 0)
        assert least <= n <= least + JUMPS, (d, f, n, least)
        total += n
    assert CALLS <= total <= CALLS + JUMPS, (d, total)
    info = ctx.run("info", "-d", d, check=True).stdout
    m = re.search(r"lost: (\d+)", info)
    lost = int(m.group(1)) if m else 0
    # at most the handler's entry and exit at each of its runs (those that
    # landed in a hook), and a call whose hook was left
    assert lost <= 2 * (JUMPS + 1) + JUMPS, (d, lost, info)
    assert "could not be decoded" not in info and "damaged" not in info, info
    seen = check_nesting(ctx, d, funcs)
    for name, calls in seen.items():
        assert calls == counts[name], (d, name, calls, counts[name])
    assert set(seen) == set(funcs), (d, sorted(set(funcs) - set(seen))[:5])


def check_nesting(ctx, d, funcs):
    """every one of funcs is main's callee, and only that (a jump that
    closed a frame too many or too few nested the rest of the thread one
    level off); returns their calls"""
    seen = {}
    rows = graph_rows(ctx, d)
    assert [r for r in rows if r[2] == "main"] == [(1, "", "main", "")], (d, rows[:4])
    for calls, prefix, name, rest in rows:
        if name in funcs:
            assert prefix == "+-" and "recursive" not in rest, (d, "nested", calls, prefix, name, rest)
            assert name not in seen, (d, "twice in the graph", name)
            seen[name] = calls
    return seen


def moved(d, tag):
    """the trace d renamed d-TAG (record_build reuses its directory)"""
    d2 = d + "-" + tag
    if os.path.exists(d2):
        shutil.rmtree(d2)
    os.rename(d, d2)
    return d2


def check(ctx):
    """every call after a siglongjmp out of a hook is recorded, under its
    own name and at its own depth, on both builds, with one function and
    with 256 that keep the address cache filling"""
    many = {}
    for k in range(256):
        many["f%02x" % k] = CALLS // 256 + (1 if k < CALLS % 256 else 0)
    check_trace(ctx, ctx.data, {"leaf": CALLS})
    check_trace(ctx, ctx.record_build("prog-fentry", stdout="leaf %d\n" % CALLS)[0], {"leaf": CALLS})
    check_trace(ctx, ctx.record_build("prog", stdout="many %d\n" % CALLS, args=("many",))[0], many)
    d = ctx.record_build("prog-fentry", stdout="many %d\n" % CALLS, args=("many",))[0]
    check_trace(ctx, d, many)
    # SA_NODEFER: an alarm lands in the jump of the one before (held back
    # while the jump started a chunk, it came when it was done, with the
    # guard held as the runtime's, which no jump frees): the thread must go
    # on recording
    for prog in ("prog", "prog-fentry"):
        d = moved(ctx.record_build(prog, stdout="leaf %d\n" % CALLS, args=("leaf", "nodefer"))[0], "nodefer")
        check_trace(ctx, d, {"leaf": CALLS})
        # -C: the calls that lead to no f00 go, those the jumps left too (a
        # record the jump wrote before erasing them kept them)
        d = moved(ctx.record_build(prog, args=("many",), record_args=("-C", "f00"))[0], "C")
        counts = ctx.counts("-d", d)
        assert 7813 <= counts.get("f00", 0) <= 7813 + JUMPS and counts.get("main") == 1, (d, counts.get("f00"))
        assert set(counts) == {"main", "f00"}, (d, sorted(set(counts) - {"main", "f00"})[:8])
        check_nesting(ctx, d, {"f00": 0})
    # -C again, 2,000 jumps every 20 us: a jump that landed in an exit hook
    # between its taking the call out of the filter depth and its closing
    # the -C match there left the match's depth kept, and the next call at
    # that depth, which led to no f00, stayed (1 run of 40 with 200 jumps)
    for prog in ("prog", "prog-fentry"):
        d = moved(ctx.record_build(prog, args=("many", "-", "2000"), record_args=("-C", "f00"))[0], "C2000")
        counts = ctx.counts("-d", d)
        assert 7813 <= counts.get("f00", 0) <= 7813 + 2000 and counts.get("main") == 1, (d, counts.get("f00"))
        assert set(counts) == {"main", "f00"}, (d, sorted(set(counts) - {"main", "f00"})[:8])
        check_nesting(ctx, d, {"f00": 0})
    # record-time erasure of the short calls, every leaf() of them (-t, a
    # time= trigger): a jump out of a hook that was taking a call back left
    # the depth counting it, and main's calls outside main.  What is kept:
    # the calls a jump left, and those that took 1 us or more
    for prog in ("prog", "prog-fentry"):
        for how in (("-t", "1us"), ("-T", "leaf@time=1us")):
            d2 = moved(ctx.record_build(prog, record_args=how)[0], how[0].strip("-"))
            info = ctx.run("info", "-d", d2, check=True).stdout
            assert "could not be decoded" not in info and "damaged" not in info, info
            assert check_nesting(ctx, d2, {"leaf": 0}), (d2, "no leaf() kept")
