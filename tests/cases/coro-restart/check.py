"""makecontext on the stack of a coroutine that was suspended and never
resumed, to start a new coroutine there (a pool that reuses the stacks of
cancelled coroutines), on the -finstrument-functions, -pg -mfentry and
patchable builds.  The new coroutine's calls start at the coroutine's
first level, and the abandoned calls close "(no return: unwound)" where
the stack was restarted.  Before, the runtime gave the new coroutine the
abandoned one's parked state: its calls nested inside the abandoned
frames, which ended "(no return: trace ended)", and under record -D 4
fifty rounds kept 1 old_deep() and no new_inner() of 50, losing the rest
without a word."""
import os

ONCE = ["main() {", "  start() {", "    old_co() {", "      old_inner() {", "        leaf();", "        yield_() {",
        "  } /* start */", "  start() {", "        } /* yield_ (no return: unwound) */",
        "      } /* old_inner (no return: unwound) */", "    } /* old_co (no return: unwound) */", "    new_co() {",
        "      new_inner() {", "        leaf();", "      } /* new_inner */", "    } /* new_co */", "  } /* start */",
        "  leaf();", "} /* main */"]


def lines(text):
    return [l.split("| ", 1)[1].rstrip() for l in text.splitlines() if "| " in l and not l.startswith("#")]


def replay(ctx, d, *opts):
    return lines(ctx.run("replay", "--no-pager", "-d", d, *opts, check=True).stdout)


def cut(got):
    """a listing short enough for a failure message"""
    return "\n".join(got[:40] + (["... %d more lines" % (len(got) - 40)] if len(got) > 40 else []))


def check(ctx):
    assert ctx.record.stdout == "done\n", ctx.record.stdout
    for prog in ("prog", "prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        d = os.path.join(ctx.work, "once-" + prog)
        ctx.run("record", "-q", "--no-libcall", "-d", d, "--", exe, data=False, check=True)
        got = replay(ctx, d)
        assert got == ONCE, (prog, cut(got))

        # with library calls: makecontext's own frame holds the closes;
        # new_co starts where old_co did
        ctx.run("record", "-q", "-d", d, "--", exe, data=False, check=True)
        got = replay(ctx, d)
        assert [l for l in got if l.strip().startswith(("old_co() {", "new_co() {"))] == \
            ["    old_co() {", "    new_co() {"], (prog, cut(got))
        assert not any("trace ended" in l for l in got), (prog, cut(got))

        # 50 rounds, each abandoning a coroutine 2 to 6 calls deep: every
        # round's new coroutine at the first level, every abandoned call
        # closed, and the record-time filters keep what the same filters
        # show at read time on the whole trace
        whole = os.path.join(ctx.work, "loop-" + prog)
        p = ctx.run("record", "-q", "--no-libcall", "-d", whole, "--", exe, "loop", data=False, check=True)
        assert p.stdout == "done\n", p.stdout
        got = replay(ctx, whole)
        assert got.count("    new_co() {") == 50 and got.count("      new_inner() {") == 50, (prog, cut(got))
        assert got.count("    } /* old_deep (no return: unwound) */") == 50, (prog, cut(got))
        assert not any("trace ended" in l for l in got), (prog, cut(got))
        assert got[-2:] == ["  leaf();", "} /* main */"], (prog, got[-2:])
        for flt in (["-D", "4"], ["-D", "3"], ["-F", "new_co"], ["-N", "deep"], ["-F", "old_deep", "-D", "2"]):
            d = os.path.join(ctx.work, "flt")
            ctx.run("record", "-q", "--no-libcall", "-d", d, *flt, "--", exe, "loop", data=False, check=True)
            rec, read = replay(ctx, d), replay(ctx, whole, *flt)
            assert rec == read, (prog, flt, cut(rec), cut(read))
    d = os.path.join(ctx.work, "d4")
    ctx.run("record", "-q", "--no-libcall", "-d", d, "-D", "4", "--", os.path.join(ctx.work, "prog"), "loop",
            data=False, check=True)
    got = replay(ctx, d)
    assert got.count("      new_inner();") == 50 and got.count("    old_deep() {") == 50, cut(got)
