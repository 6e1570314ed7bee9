import os
import re


def replay(ctx, d):
    return ctx.run("replay", "--no-pager", "--fields", "tid", "-d", d, check=True).stdout


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    # thread: the worker ended (pthread_exit) before recording went off for
    # good: its calls did not end "while recording was off"; main's did
    assert ctx.record.stdout == "thread\n", ctx.record.stdout
    text = replay(ctx, ctx.data)
    tids = re.findall(r"^\[ *(\d+)\] \|", text, re.M)
    main_tid = tids[0]
    worker = [l for l in text.splitlines() if l.startswith("[") and not l.startswith("[%6s]" % main_tid)]
    assert any("inner" in l for l in worker), text
    assert not any("recording was off" in l for l in worker), text
    assert text.rstrip().endswith("| } /* main (no return: recording was off) */"), text

    # fork: recording off around fork(), the child switches it on: the calls
    # it inherited (main, outer, spawn) were entered before it began
    d = os.path.join(ctx.work, "fork.data")
    p = ctx.run("record", "-q", "-d", d, "--", prog, "fork", data=False, check=True)
    assert sorted(p.stdout.split()) == ["child", "parent"], p.stdout
    text = replay(ctx, d)
    assert "while recording was off" not in text, text
    for f in ("spawn", "outer", "main"):
        assert re.search(r"\| +\} /\* %s \(entered before this process began\) \*/$" % f, text, re.M), text

    # toggle: a million switches off and on under a flight recorder of
    # 64 KiB chunks: the file stays small, and reads without a warning
    d = os.path.join(ctx.work, "toggle.data")
    p = ctx.run("record", "-q", "--ring", "64K", "-d", d, "--", prog, "toggle", data=False, check=True)
    assert p.stdout == "toggled\n", p.stdout
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".fnt"))
    assert size < 2 << 20, size
    p = ctx.run("replay", "-d", d, check=True)
    assert p.stderr == "" and "main()" in p.stdout, (p.stdout[:500], p.stderr[:500])

    # ring: switched off and on at the start, then 4 M events into 64 KiB
    # chunks: main and long_running were entered before the history kept
    d = os.path.join(ctx.work, "ring.data")
    ctx.run("record", "-q", "--ring", "64K", "-d", d, "--", prog, "ring", data=False, check=True)
    text = replay(ctx, d)
    assert "while recording was off" not in text, text[-2000:]
    for f in ("long_running", "main"):
        assert re.search(r"\| +\} /\* %s \(entered before the history start\) \*/$" % f, text, re.M), text[-2000:]

    # ringoff: switched off and on at the end of a long run under a flight
    # recorder: turn_on was entered while recording was off, not before
    # the history (which a switch before it would have said)
    d = os.path.join(ctx.work, "ringoff.data")
    ctx.run("record", "-q", "--ring", "64K", "-d", d, "--", prog, "ringoff", data=False, check=True)
    text = replay(ctx, d)
    assert re.search(r"\| +\} /\* turn_on \(entered while recording was off\) \*/$", text, re.M), text[-2000:]
    assert re.search(r"\| +\} /\* long_running \(entered before the history start\) \*/$", text, re.M), \
        text[-2000:]
    # (main, entered before the history too, returns after the switch: the
    # trace cannot tell it from turn_on, and says recording was off; the
    # README says so)

    # forkoff: in the child, bye() (run by exit) was entered while recording
    # was off (before, "before this process began", as main was)
    d = os.path.join(ctx.work, "forkoff.data")
    p = ctx.run("record", "-q", "-d", d, "--", prog, "forkoff", data=False, check=True)
    assert p.stdout == "forked\n", p.stdout
    text = replay(ctx, d)
    assert re.search(r"\| +\} /\* bye \(entered while recording was off\) \*/$", text, re.M), text
    assert "main (entered while" not in text, text     # (main returned while recording was off: unseen)

    # retoff: quit() returned while recording was off, inside resume(),
    # which switched it on again: quit's return is written, and the leaf()
    # after it is resume's (before, inside quit, which said "unwound")
    d = os.path.join(ctx.work, "retoff.data")
    p = ctx.run("record", "-q", "-d", d, "--", prog, "retoff", data=False, check=True)
    assert p.stdout == "retoff\n", p.stdout
    got = [l.split("| ", 1)[1] for l in replay(ctx, d).splitlines()[1:]]
    i = got.index("  resume() {")
    assert got[i:i + 6] == ["  resume() {", "    quit() {", "      leaf();", "    } /* quit */", "    leaf();",
                            "  } /* resume */"], got
    # and the same with record-time filters, which decide that return as
    # any other
    for opts in (["-D", "50"], ["-F", "resume"]):
        ctx.run("record", "-q", "-d", d, *opts, "--", prog, "retoff", data=False, check=True)
        got = [l.split("| ", 1)[1].strip() for l in replay(ctx, d).splitlines()[1:]]
        i = got.index("resume() {")
        assert got[i:i + 6] == ["resume() {", "quit() {", "leaf();", "} /* quit */", "leaf();", "} /* resume */"], \
            (opts, got)
    # the same under a trace_off trigger on quit: quit's entry is not
    # written, nor its return
    p = ctx.run("record", "-q", "-d", d, "-T", "quit@trace_off", "--", prog, "retoff", data=False, check=True)
    got = [l.split("| ", 1)[1] for l in replay(ctx, d).splitlines()[1:]]
    i = got.index("  resume() {")
    assert got[i:i + 3] == ["  resume() {", "    leaf();", "  } /* resume */"], got

    # jmpoff: longjmps while recording is off leave calls entered since;
    # they are counted out, and jquit's and jquit2's returns are written
    # (before, jquit stayed open: every later call nested inside it)
    want = ["jresume() {", "jquit() {", "leaf();", "} /* jquit */", "leaf();", "jquit2();", "leaf();",
            "} /* jresume */", "} /* main */"]
    for opts in ([], ["-D", "50"], ["-F", "jresume"]):
        p = ctx.run("record", "-q", "-d", d, *opts, "--", prog, "jmpoff", data=False, check=True)
        assert p.stdout == "jmpoff\n", p.stdout
        got = [l.split("| ", 1)[1].strip() for l in replay(ctx, d).splitlines()[1:]]
        i = got.index("jresume() {")
        assert got[i:] == want[:len(want) - (opts[:1] == ["-F"])], (opts, got)
        assert "entered while" not in " ".join(got) and "no return" not in " ".join(got), (opts, got)

    # jmpcoro: the jumps go from one machine stack to another, each with
    # its own count: runner's return (while off) is written, and main's
    # calls after it are not inside it (what the coroutine's calls show,
    # left by jumps, is not asserted)
    p = ctx.run("record", "-q", "--no-libcall", "-d", d, "--", prog, "jmpcoro", data=False, check=True)
    assert p.stdout == "jmpcoro\n", p.stdout
    got = [l.split("| ", 1)[1] for l in replay(ctx, d).splitlines()[1:]]
    i = got.index("  } /* runner */")
    assert got[i:] == ["  } /* runner */", "  leaf();", "} /* main */"], got
    assert got.count("  runner() {") == 1, got

    # jmpaway: jumps while off from another machine stack back to the one
    # the buffer was set on (a coroutine's, a sigaltstack handler's): the
    # returns of outer2 and s3 (open when recording went off) are written,
    # s3mid was left by the jump, and main's calls after are main's; also
    # when a handler runs on the sigaltstack before any hook on the main
    # stack (outer3: before, its return was lost), and when setjmp is
    # called before a hook saw the thread back from the handler (outer4)
    for opts in ([], ["-D", "50"]):
        p = ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", prog, "jmpaway", data=False, check=True)
        assert p.stdout == "jmpaway\n", p.stdout
        got = [l.split("| ", 1)[1] for l in replay(ctx, d).splitlines()[1:]]
        assert got == ["main() {", "  outer2();", "  leaf();", "  s3() {", "    s3mid() {",
                       "    } /* s3mid (no return: unwound) */", "  } /* s3 */", "  leaf();", "  outer3();", "  leaf();",
                       "  outer4();", "  leaf();", "} /* main */"], (opts, got)

    # sigstop: a handler's stop() switches recording off; each stop() that
    # ran inside a hook lost its entry and its return, both counted (the
    # return too, though recording was off: it is the return of a call
    # entered while on, which is written when nothing is in the way)
    p = ctx.run("record", "--no-libcall", "-d", d, "--", prog, "sigstop", data=False, check=True)
    assert p.stdout == "sigstop\n", p.stdout
    lost = int(re.search(r"fntrace: wrote .*, (\d+) lost$", p.stderr, re.M).group(1))
    kept = len(re.findall(r"\| +stop\(\);$", replay(ctx, d), re.M))
    assert lost == 2 * (2000 - kept), (lost, kept, p.stderr)

    # coro: the calls entered while recording is off are counted per
    # machine stack: cy()'s return, on the coroutine's stack, is written (it
    # was open when recording went off), and r(1)'s, on the main stack,
    # entered while off, is not (before, it was written, and closed r(2):
    # r(2)'s leaf() showed under main)
    for opts in ([], ["-D", "50"]):
        ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", prog, "coro", data=False, check=True)
        got = [l.split("| ", 1)[1].strip() for l in replay(ctx, d).splitlines()[1:]]
        assert got.count("} /* r */") == 1 and "entered while" not in " ".join(got), (opts, got)
        i = got.index("} /* r */")
        assert got[i - 1:i + 3] == ["leaf();", "} /* r */", "leaf();", "} /* main */"] and "cy();" in got, (opts, got)
