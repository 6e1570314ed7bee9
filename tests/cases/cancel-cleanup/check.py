"""pthread_cancel under traced frames (issue: a cancelled thread's C++
destructors never ran when a traced frame's return address was swapped:
glibc starts the forced unwind past the runtime's stubs, and the unwind
ended at the first swapped frame).  The destructors run, innermost first,
under -finstrument-functions with library calls traced (usleep's return
swapped) and under -pg -mfentry with and without them; the trace shows
each one in its frame.  A thread that ends with calls open closes them as
unwound at its end, the outermost one included (it read "trace ended");
the calls a later pthread key destructor makes are outside them, for the
record-time filters too; and 300 cancelled -pg threads leave the address
space flat (their shadow stacks were never unmapped)."""
import os
import re

WANT = "destructors c!ba, cancelled 1\n"
LIB = re.compile(r"\b(usleep|nanosleep|strcat|__nanosleep|clock_nanosleep|pthread_exit|thrd_exit|__cxa_\w+)\b")
SHAPE = ["worker() {", "  Guard::Guard();", "  middle() {", "    Guard::Guard();", "    wait_here() {",
         "      Guard::Guard();", "      Guard::~Guard();", "    } /* wait_here */", "    Guard::~Guard();",
         "  } /* middle */", "  Guard::~Guard();", "} /* worker */"]


def worker_lines(ctx, d):
    """the cancelled thread's replay lines, library calls left out, a call
    left with nothing in it shown as a leaf, and the closing lines without
    their '(no return: unwound)': the cancellation unwound every frame, the
    thread's outermost one included (it read "trace ended" before)"""
    out = ctx.run("replay", "--no-pager", "--fields", "tid", "-d", d, check=True).stdout
    by = {}
    for l in out.splitlines()[1:]:
        m = re.match(r"^\[\s*(\d+)\] \| (.*)$", l)
        assert m, l
        by.setdefault(m.group(1), []).append(m.group(2))
    got = [ls for ls in by.values() if ls[0] == "worker() {"]
    assert len(got) == 1, by
    lines = []
    for l in got[0]:
        if LIB.search(l):
            continue
        l = re.sub(r" \(no return: unwound\) \*/$", " */", l)
        m = re.match(r"^( *)\} /\* (\S+) \*/$", l)
        if m and lines and lines[-1] == "%s%s() {" % (m.group(1), m.group(2)):
            lines[-1] = "%s%s();" % (m.group(1), m.group(2))
            continue
        lines.append(l)
    return lines


def check(ctx):
    assert ctx.record.stdout == WANT, ctx.record.stdout
    assert worker_lines(ctx, ctx.data) == SHAPE, worker_lines(ctx, ctx.data)
    for args in ((), ("--no-libcall",)):
        d = ctx.record_build("prog-fentry", stdout=WANT, record_args=args)[0]
        assert worker_lines(ctx, d) == SHAPE, (args, worker_lines(ctx, d))
        # asynchronous cancellation, landing anywhere (the return
        # trampoline included): the program runs as untraced (it was
        # killed by SIGSEGV in 3 runs of 3 on 4764757)
        ctx.record_build("async-fentry", stdout="cancelled 100 of 100\n", record_args=args)
    # 300 cancelled -pg threads: 2.5 MB of shadow stack each was kept
    # (750 MB), 4,096 of them filled the registry of parked stacks
    ctx.record_build("many-fentry", stdout="cancelled 300, address space flat\n", record_args=["--no-libcall"])
    # ...and 300 that return, every call filtered out at record time, or
    # recording off: their threads wrote no event (kept 2.5 MB each)
    for args in (["-F", "main"], ["-N", "worker"], ["--trace=off"]):
        d, rec = ctx.record_build("many-fentry", stdout="cancelled 0, address space flat\n", args=["return"],
                                  record_args=["--no-libcall", "-q"] + args)
    check_exit(ctx)
    check_keys(ctx)


def check_exit(ctx):
    """pthread_exit and C11's thrd_exit under the same frames: the
    destructors nest as a cancellation's do, under -pg -mfentry too (after
    pthread_exit they came after the thread's outermost frame had closed,
    at depth 0, each frame closed as unwound before any cleanup ran)"""
    for prog in ("prog", "prog-fentry"):
        for how in ("pthread", "thrd"):
            for args in ((), ("--no-libcall",)):
                d = ctx.record_build(prog, stdout="destructors c!ba, exited 7\n", args=[how], record_args=args)[0]
                assert worker_lines(ctx, d) == SHAPE, (prog, how, args, worker_lines(ctx, d))


KEYS = ["main() {", "worker() {", "  f() {", "    b() {", "      leaf();", "      c() {", "        leaf();",
        "      } /* c */", "    } /* b */", "  } /* f */", "} /* worker */", "dtor() {", "  d() {",
        "    e() {", "      leaf();", "    } /* e */", "    leaf();", "  } /* d */", "} /* dtor */", "} /* main */"]


def keys_lines(ctx, d, *opts):
    out = ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, *opts, check=True).stdout
    # (gcc's exit hooks run in the cleanups of a forced unwind: the frames
    # return; clang's -finstrument-functions and -pg ones close as unwound)
    return [re.sub(r"\.constprop\.\d+| \(no return: unwound\)", "", l[2:]) for l in out.splitlines()
            if not l.startswith("#")]


def check_keys(ctx):
    """pthread_exit (0) and a cancel (1) of a thread inside f() -> b() -> c(),
    then a pthread key destructor's calls: the thread's frames close as
    unwound; record-time filters see the destructor's calls outside f()
    (record -F f kept them, -N f and -D 2 dropped them)"""
    for prog in ("keys", "keys-fentry"):
        for mode, said in (("0", "exited\n"), ("1", "cancelled\n")):
            full = ctx.record_build(prog, stdout=said, args=[mode], record_args=["--no-libcall"])[0]
            assert keys_lines(ctx, full) == KEYS, (prog, mode, keys_lines(ctx, full))
            for opts in (["-F", "f"], ["-N", "f"], ["-D", "2"], ["-C", "e"]):
                d = os.path.join(ctx.work, "keys-%s-%s-%s.data" % (prog, mode, opts[1]))
                p = ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", os.path.join(ctx.work, prog), mode,
                            data=False, check=True)
                assert p.stdout == said, (prog, mode, opts, p.stdout)
                want = keys_lines(ctx, full, *opts)
                assert want and keys_lines(ctx, d) == want, (prog, mode, opts, keys_lines(ctx, d), want)
    # -F f shows f's subtree only; -N f the destructor's calls at the
    # thread's top level
    assert keys_lines(ctx, full, "-F", "f") == [l[2:] for l in KEYS[2:10]], keys_lines(ctx, full, "-F", "f")
    assert keys_lines(ctx, full, "-N", "f")[-9:] == KEYS[-9:], keys_lines(ctx, full, "-N", "f")
