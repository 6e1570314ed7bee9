import os, re, subprocess

# Record-time filters on a -pg -mfentry build: the trampolines take the
# same decisions as the -finstrument-functions hooks, and an entry erased
# by -t takes its ARGS record with it.
ARGS = ["-A", "leaf@arg1", "-R", "leaf@retval", "-A", "mid@arg1", "-R", "mid@retval",
        "-A", "slow@arg1", "-R", "slow@retval", "-A", "hidden@arg1", "-R", "hidden@retval"]
MS = 1000000


def record(ctx, name, *args):
    d = os.path.join(ctx.work, "rec-" + name)
    p = subprocess.run([ctx.fntrace, "record", "-d", d, *args, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, (args, p.stderr)
    assert p.stdout == "sum 30\n", p.stdout
    return d


def tree(ctx, d, *args):
    p = ctx.run("replay", "-d", d, *args, check=True)
    assert p.stderr == "", p.stderr
    return [l.split("| ", 1)[1] for l in p.stdout.splitlines() if "| " in l and not l.startswith("#")]


def check(ctx):
    # -F with arguments: only the subtrees under mid, with their values
    d = record(ctx, "F", "-F", "mid", *ARGS)
    want = []
    for i in range(3):
        want += ["mid(%d) {" % i, "  leaf(%d) = %d;" % (i, i + 1), "  slow(%d) = %d;" % (i, 2 * i),
                 "} = %d /* mid */" % (3 * i + 1)]
    got = tree(ctx, d)
    assert got == want, got

    # -N: hidden and the leaf it calls are gone; mid's leaf stays
    d = record(ctx, "N", "-N", "hidden", *ARGS)
    got = tree(ctx, d)
    assert got[0] == "main() {" and got[-1] == "} /* main */", got
    assert sum(l.strip().startswith("leaf(") for l in got) == 3, got
    assert not any("hidden" in l for l in got), got

    # -D 2: main and its direct callees
    d = record(ctx, "D", "-D", "2", *ARGS)
    got = tree(ctx, d)
    want = ["main() {"]
    for i in range(3):
        want += ["  mid(%d) = %d;" % (i, 3 * i + 1), "  hidden(%d) = %d;" % (i, 3 * (i + 1))]
    assert got == want + ["} /* main */"], got

    # -t: the short calls (leaf, hidden) are erased with their ARGS records;
    # what stays decodes cleanly and keeps its values.  leaf and hidden last
    # a microsecond or two, unless the scheduler takes the CPU away
    # inside one: on a loaded machine a call can last 1 ms, and -t rightly
    # keeps it.  A run that kept one must show each leaf and hidden call it
    # kept lasting 1 ms (1 % slack: the threshold is converted to ticks with
    # a 2 ms calibration); then the program runs again, up to 10 runs, until
    # one gives the exact tree
    want = ["main() {"]
    for i in range(3):
        want += ["  mid(%d) {" % i, "    slow(%d) = %d;" % (i, 2 * i), "  } = %d /* mid */" % (3 * i + 1)]
    want += ["} /* main */"]
    for _ in range(10):
        d = record(ctx, "t", "-t", "1ms", *ARGS)
        got = tree(ctx, d)
        if got == want:
            break
        kept = [r for r in ctx.csv("-d", d) if r["function"] in ("leaf", "hidden")]
        assert kept and all(int(r["min_ns"]) >= 0.99 * MS for r in kept), (got, kept)
    assert got == want, got
    # json: the same calls, one object each
    p = ctx.run("replay", "-d", d, "--format", "json", "-F", "mid", check=True)
    names = re.findall(r'"name":"(\w+)"', p.stdout)
    assert names == ["slow", "mid"] * 3, names
    # --follow and --format json do not go together: a usage error
    p = ctx.run("replay", "-d", d, "--follow", "--format", "json")
    assert p.returncode == 2 and "--follow" in p.stderr, p.stderr

    # fntrace live passes -A/-R (and the filters) to record: what it prints
    # in the end is the replay, values included
    d = os.path.join(ctx.work, "rec-live")
    p = subprocess.run([ctx.fntrace, "live", "-d", d, "-F", "mid", "-A", "mid@arg1", "-R", "mid@retval",
                        "--", os.path.join(ctx.work, "prog")], capture_output=True, text=True, cwd=ctx.work,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    live = [l.split("| ", 1)[1] for l in p.stdout.splitlines() if "| " in l and not l.startswith("#")]
    assert live == tree(ctx, d), (live, tree(ctx, d))
    assert live[0] == "mid(0) {" and live[-1] == "} = 7 /* mid */", live
