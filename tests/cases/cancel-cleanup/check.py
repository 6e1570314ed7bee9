"""pthread_cancel under traced frames (issue: a cancelled thread's C++
destructors never ran when a traced frame's return address was swapped:
glibc starts the forced unwind past the runtime's stubs, and the unwind
ended at the first swapped frame).  The destructors run, innermost first,
under -finstrument-functions with library calls traced (usleep's return
swapped) and under -pg -mfentry with and without them; the trace shows
each one in its frame."""
import re

WANT = "destructors cba, cancelled 1\n"
LIB = re.compile(r"\b(usleep|nanosleep|strcat|__nanosleep|clock_nanosleep)\b")
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
