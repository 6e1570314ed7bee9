"""Jumps out of coroutines, shared-stack coroutines, and a thread whose
first written call is on a coroutine's stack, on the
-finstrument-functions, -pg -mfentry and patchable builds.

"jump": a coroutine entered from main -> a -> b longjmps out of y() back
to a(), three rounds, each on a new coroutine made on the same stack: x
and y (on the coroutine's stack) and b (on the main stack) end "unwound",
and a's leaf() after the jump is a's; the record-time filters keep what
they show at read time on the whole trace.  Before, the jump closed as
many calls as lay above the buffer in the thread's count, all of them on
the coroutine's stack, and b stayed open until a returned: a's leaf()
showed inside b, and under record -D 3 inside x.

"shared": two coroutines on one shared stack, saved and restored by
memcpy, each new one made with makecontext on the stack the other is
suspended on: the program runs to its end under every build and every
call is counted (a change that dropped the suspended coroutine's frames at
makecontext aborted the -pg and patchable builds: "shadow stack out of
sync").  Which frame the reader pairs a return with on a shared stack is
not asserted: both coroutines have the same stack's name.

"pingpong": main and a coroutine hand control to each other by setjmp
and longjmp: a jump from main's stack into the coroutine's closes nothing
on main's, and the record-time filters -F leaf and -F presume keep what
they show at read time, on every build.  Before, the jump from main
closed main's calls above the buffer (-F presume differed), and a first
version of the jump rule, which compared written depths, lost leaf's
returns under -F leaf.  The coroutine's calls are closed when it jumps
back to main, though main resumes them later; under -pg and patchable
builds their frames are kept, closed, and their returns write nothing and
reach no filter, so -D 2, -D 3, -N leaf, -H cwork and -F cwork at record
time also keep what they show at read time there (they differed before).
Under -finstrument-functions those returns are written, and those
filters still differ (doc/safety.md).

"waiting": a scheduler that runs coroutines by _setjmp/_longjmp alone
keeps one waiting, in a yield, while another yields 1,500 times; it must
run to its end on every build, library calls traced or not, with every
call counted and none lost.  Before, under -pg and patchable builds, a
jump out of a coroutine left the frames it cut only in the process's
graveyard of 1,024: the waiting coroutine's return from its yield found
no address and the runtime aborted the program ("shadow stack out of
sync"; with library calls traced, a crash).  The yield is reached by a
tail call at -O2 (wstep -> wtail: one return slot for both frames), which
a first version of the fix took for a dead frame and buried: it aborted
there still (found by review).

"many": 4,500 coroutines on stacks of their own yield once by _longjmp
and run to their end: every call counted, none lost.  A first version of
the fix kept their closed frames, so their stacks never left the
registry of 4,096 parked stacks, and the last ones lost their calls
(found by review).

"first", recorded with -F job: the thread's first written call is on a
coroutine's stack.  Before, no SWITCH preceded it: the reader put it on
the thread's own stack, and the second coroutine's job() nested inside
the first's, unlike -F job at read time."""
import os
import re

JUMP = ["main() {"] + ["  a() {", "    b() {", "      x() {", "        y() {", "          leaf();",
                       "        } /* y (no return: unwound) */", "      } /* x (no return: unwound) */",
                       "    } /* b (no return: unwound) */", "    leaf();", "  } /* a */"] * 3 + ["  leaf();",
                                                                                               "} /* main */"]


def lines(text):
    return [l.split("| ", 1)[1].rstrip() for l in text.splitlines() if "| " in l and not l.startswith("#")]


def replay(ctx, d, *opts):
    return lines(ctx.run("replay", "--no-pager", "-d", d, *opts, check=True).stdout)


def cut(got):
    """a listing short enough for a failure message"""
    return "\n".join(got[:40] + (["... %d more lines" % (len(got) - 40)] if len(got) > 40 else []))


def calls(ctx, d):
    out = ctx.run("report", "-d", d, check=True).stdout
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"^\s*\S+ \S+\s+\S+ \S+\s+(\d+)\s+.*\s(\w+)$", out, re.M)}


def runs_to_end(ctx, prog, mode, want):
    """mode runs to its end, library calls traced or not, with these calls counted"""
    for opts in (["--no-libcall"], []):
        d = os.path.join(ctx.work, mode)
        p = ctx.run("record", "-q", *opts, "-d", d, "--", os.path.join(ctx.work, prog), mode, data=False)
        assert p.returncode == 0 and p.stdout == "done\n", (prog, mode, opts, p.returncode, p.stderr)
        n = calls(ctx, d)
        assert {f: n.get(f) for f in want} == want, (prog, mode, opts, n)
        info = ctx.run("info", "-d", d, check=True).stdout
        assert "\nlost: 0\n" in info, (prog, mode, opts, info[:600])


def check(ctx):
    assert ctx.record.stdout == "done\n", ctx.record.stdout
    for prog in ("prog", "prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        whole = os.path.join(ctx.work, "jump-" + prog)
        ctx.run("record", "-q", "--no-libcall", "-d", whole, "--", exe, "jump", data=False, check=True)
        got = replay(ctx, whole)
        assert got == JUMP, (prog, cut(got))
        for flt in (["-D", "3"], ["-D", "2"], ["-N", "y"], ["-F", "x"], ["-F", "b"], ["-H", "b"]):
            d = os.path.join(ctx.work, "flt")
            ctx.run("record", "-q", "--no-libcall", "-d", d, *flt, "--", exe, "jump", data=False, check=True)
            rec, read = replay(ctx, d), replay(ctx, whole, *flt)
            assert rec == read, (prog, flt, cut(rec), cut(read))

        runs_to_end(ctx, prog, "shared", {"leaf": 7, "work": 2, "body": 2, "yield_": 4, "resume": 6})

        whole = os.path.join(ctx.work, "pingpong-" + prog)
        p = ctx.run("record", "-q", "--no-libcall", "-d", whole, "--", exe, "pingpong", data=False, check=True)
        assert p.stdout == "done\n", p.stdout
        more = [] if prog == "prog" else [["-D", "2"], ["-D", "3"], ["-N", "leaf"], ["-H", "cwork"], ["-F", "cwork"]]
        for flt in [["-F", "leaf"], ["-F", "presume"]] + more:
            d = os.path.join(ctx.work, "flt")
            ctx.run("record", "-q", "--no-libcall", "-d", d, *flt, "--", exe, "pingpong", data=False, check=True)
            rec, read = replay(ctx, d), replay(ctx, whole, *flt)
            assert rec == read, (prog, flt, cut(rec), cut(read))
            if flt == ["-F", "leaf"]:
                assert rec.count("leaf();") == 10 and len(rec) == 10, (prog, cut(rec))

        runs_to_end(ctx, prog, "waiting",
                    {"wbody": 2, "wstep": 1502, "wtail": 1502, "wyield": 1502, "leaf": 3005, "wresume": 1504})
        runs_to_end(ctx, prog, "many", {"mbody": 4500, "mwork": 4500, "myield": 4500, "leaf": 9001})

        whole = os.path.join(ctx.work, "first-" + prog)
        ctx.run("record", "-q", "--no-libcall", "-d", whole, "--", exe, "first", data=False, check=True)
        d = os.path.join(ctx.work, "flt")
        ctx.run("record", "-q", "--no-libcall", "-d", d, "-F", "job", "--", exe, "first", data=False, check=True)
        rec, read = replay(ctx, d), replay(ctx, whole, "-F", "job")
        assert rec == read and rec.count("job() {") == 2 and rec[-1] == "} /* job */", (prog, cut(rec), cut(read))
