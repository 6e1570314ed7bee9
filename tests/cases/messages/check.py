"""Messages that point at the real problem: a uftrace trace, a file that is
not a trace, -F/-N globs that match nothing, and a time range that selects
nothing (saying where the calls are).  Each is one line naming the file or
option; the output is otherwise what it was."""
import os
import re


def check(ctx):
    problems = []

    def expect(args, rc, line, stdout=None):
        p = ctx.run(*args, data=False)
        got = p.stderr.splitlines()
        if p.returncode != rc or not got or not re.fullmatch(line, got[0]) or len(got) != 1:
            problems.append("fntrace %s: exit %d, stderr %r; want exit %d and one line like %r" % (
                " ".join(args), p.returncode, p.stderr, rc, line))
        if stdout is not None and stdout not in p.stdout:
            problems.append("fntrace %s: stdout %r lacks %r" % (" ".join(args), p.stdout, stdout))

    d = ctx.data
    # a uftrace.data directory (its info and task.txt files)
    u = os.path.join(ctx.work, "uftrace.data")
    os.makedirs(u, exist_ok=True)
    for f in ("info", "task.txt", "12345.dat"):
        open(os.path.join(u, f), "w").write("x\n")
    for cmd in ("replay", "report", "info"):
        expect([cmd, "-d", u], 1, re.escape(
            "fntrace: '%s' is a uftrace trace, not an fntrace one (read it with 'uftrace replay -d %s'; "
            "'fntrace record' writes fntrace's)" % (u, u)))
    # a source file given as the trace
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")
    expect(["replay", "-d", src], 1,
           re.escape("fntrace: '%s': not a fntrace trace file (it does not start with 'FNTRACE1')" % src))
    # a glob that matches nothing: the output is empty, and says why
    for opt in ("-F", "-N"):
        for cmd in ("replay", "report", "graph"):
            expect([cmd, "-d", d, opt, "nosuch*"], 0, re.escape(
                "fntrace: warning: %s 'nosuch*' matches no function that was called in '%s' "
                "(see 'fntrace report' for the names)" % (opt, d)))
    p = ctx.run("replay", "-d", d, "-F", "pars*", "-N", "main", check=True)
    assert p.stderr == "", p.stderr   # both globs matched functions (-N main then hides all)
    # a time range before or after every call
    dur = r"\d+\.\d{3} (us|ms| s)"
    line = (r"fntrace: warning: the time range selects no call: the calls in '%s' run from %s to %s "
            r"after the start of the recording" % (re.escape(d), dur, dur))
    expect(["replay", "-d", d, "--until", "1ns"], 0, line)
    expect(["report", "-d", d, "--since", "1000s"], 0, line)
    p = ctx.run("replay", "-d", d, "--since", "0ns", check=True)
    assert p.stderr == "" and p.stdout.count("parse();") == 3, p
    assert not problems, "\n".join(problems)
