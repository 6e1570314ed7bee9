"""What a uftrace user types gets a usage error (exit 2) whose first line
names the fntrace spelling to use, word for word."""
import os


def check(ctx):
    problems = []

    def expect(args, first_line, cwd=None):
        p = ctx.run(*args, data=False, cwd=cwd)
        line = p.stderr.splitlines()[0] if p.stderr else ""
        if p.returncode != 2 or line != first_line:
            problems.append("fntrace %s: exit %d, first line %r\n    want exit 2, %r" % (
                " ".join(args), p.returncode, line, first_line))

    # 'uftrace ./prog' records and replays: fntrace's command for that is live
    expect(["./prog"], "fntrace: './prog' is not a fntrace command; to trace that program: 'fntrace live ./prog' "
           "(or 'fntrace record ./prog', then 'fntrace replay')", cwd=ctx.work)
    expect(["./prog", "1"], "fntrace: './prog' is not a fntrace command; to trace that program: 'fntrace live "
           "./prog ...' (or 'fntrace record ./prog ...', then 'fntrace replay')", cwd=ctx.work)
    # a word that names no program stays a plain error
    expect(["frobnicate"], "fntrace: 'frobnicate' is not a fntrace command")
    expect(["./case.json"], "fntrace: './case.json' is not a fntrace command",
           cwd=os.path.dirname(__file__))
    for part in (check_options, check_help):
        try:
            part(ctx)
        except AssertionError as e:
            problems.append(str(e))
    assert not problems, "\n".join(problems)


def check_options(ctx):
    """uftrace's option spellings: the error names fntrace's"""
    problems = []
    prog = os.path.join(ctx.work, "prog")
    d = ctx.data

    def expect(args, first_line):
        p = ctx.run(*args, data=False)
        line = p.stderr.splitlines()[0] if p.stderr else ""
        if p.returncode != 2 or line != first_line:
            problems.append("fntrace %s: exit %d, first line %r\n    want exit 2, %r" % (
                " ".join(args), p.returncode, line, first_line))

    for cmd in ("record", "live"):
        expect([cmd, "-a", prog], "fntrace: unknown option '-a': uftrace's -a is fntrace's '--auto-args'")
        expect([cmd, "--disable", prog], "fntrace: unknown option '--disable': uftrace's --disable is fntrace's "
               "'--trace=off' (start with recording off; fnt_enable(), a -T FUNC@trace_on trigger or --signal "
               "SIG@trace_on turns it on)")
        expect([cmd, "-l", prog], "fntrace: unknown option '-l': uftrace's -l is fntrace's '--nest-libcall'")
        expect([cmd, "-b", "1M", prog], "fntrace: unknown option '-b': uftrace's -b/--buffer is fntrace's "
               "'--chunk-size SIZE'")
    expect(["record", "--srcline", prog], "fntrace: unknown option '--srcline': fntrace needs nothing at record "
           "time for source lines: 'fntrace replay --srcline' reads file:line from the debug information; "
           "'record --callsite' also records where each call was made from")
    # --time was taken as an abbreviation of --time-filter, with the program as its value
    expect(["record", "--time", prog], "fntrace: unknown option '--time': uftrace's 'record --time' (a "
           "time(1)-like summary) is not in fntrace: 'fntrace info' shows the run's duration and exit status, "
           "and 'time fntrace record ...' the CPU times; for a duration threshold write '--time-filter TIME' (-t)")
    # no abbreviation takes the next argument as its value
    expect(["record", "--time-f", prog], "fntrace: option '--time-f' is short for '--time-filter', which takes a "
           "value: write '--time-filter %s' in full if that is meant (an abbreviated option does not take the "
           "next argument as its value)" % prog)
    expect(["report", "-d", d, "--so", "calls"], "fntrace: option '--so' is short for '--sort', which takes a "
           "value: write '--sort calls' in full if that is meant (an abbreviated option does not take the next "
           "argument as its value)")
    # ... but one given its value with '=' is still accepted
    p = ctx.run("report", "-d", d, "--so=calls", data=False)
    if p.returncode != 0 or "leaf" not in p.stdout:
        problems.append("report --so=calls: exit %d %r" % (p.returncode, p.stderr))
    # replay's -f is --format; uftrace's -f is --fields
    for v in ("duration,tid", "none", "time,elapsed"):
        expect(["replay", "-d", d, "-f", v], "fntrace: option '-f' is '--format' (text or json), not uftrace's "
               "-f/--output-fields: for the columns write '--fields %s'" % v)
    expect(["replay", "-d", d, "--output-fields", "tid"], "fntrace: unknown option '--output-fields': uftrace's "
           "-f/--output-fields is fntrace's '--fields LIST' (duration, tid, time, elapsed, delta, self, module, "
           "addr, srcline, none)")
    expect(["replay", "-d", d, "-f", "xml"], "fntrace: option '--format' takes 'text' or 'json', not 'xml'")
    for cmd in ("replay", "report"):
        expect([cmd, "-d", d, "--format", "html"], "fntrace: option '--format' takes %s, not 'html': for html "
               "use 'fntrace export -f html'" % ("'text' or 'json'" if cmd == "replay" else "text, csv or json"))
    for args in (["--format", "html"], ["-f", "html"]):
        expect(["graph", "-d", d] + args, "fntrace: unknown option '%s': graph writes text only; for an html, svg "
               "or folded view use 'fntrace export -f html' (or svg, folded)" % args[0])
    # report's sort keys
    for uf, ours in (("call", "calls"), ("func", "name")):
        expect(["report", "-d", d, "-s", uf], "fntrace: option '--sort': uftrace's key '%s' is fntrace's '%s' "
               "(fntrace's keys: total, self, calls, avg, max, min, name)" % (uf, ours))
    expect(["report", "-d", d, "-s", "call,total"], "fntrace: option '--sort' takes one key (total, self, calls, "
           "avg, max, min or name), not a list: 'call,total'")
    # uftrace's dump
    expect(["dump", "--chrome"], "fntrace: 'dump' is not a fntrace command: uftrace's 'dump --chrome' is 'fntrace "
           "export -f chrome', 'dump --flame-graph' is 'fntrace export -f folded' (or -f svg), and 'fntrace replay "
           "-f json' writes every call as a record")
    expect(["replay", "-d", d, "--chrome"], "fntrace: unknown option '--chrome': uftrace's 'dump --chrome' is "
           "'fntrace export -f chrome'")
    expect(["export", "-d", d, "--flame-graph"], "fntrace: unknown option '--flame-graph': uftrace's 'dump "
           "--flame-graph' is 'fntrace export -f folded' (or -f svg for the drawn flame graph)")
    # total and self were always keys
    for k in ("total", "self"):
        p = ctx.run("report", "-d", d, "-s", k, data=False)
        if p.returncode != 0:
            problems.append("report -s %s: %r" % (k, p.stderr))
    assert not problems, "\n".join(problems)


HELP_T = (
    "time=DUR (FUNC's calls shorter than DUR left out with their callees; uftrace's time= hides the calls under "
    "FUNC shorter than DUR instead: -F FUNC -t DUR here), hide, filter, notrace (-H, -F, -N for FUNC). depth=N "
    "on a recursive FUNC counts from its outermost call (uftrace restarts at each nested call)")


def check_help(ctx):
    """-T's time= and depth= mean something else than uftrace's: every
    reading command's --help says so, and the behaviour is what it says"""
    problems = []
    for cmd in ("replay", "report", "graph", "export"):
        text = " ".join(ctx.run(cmd, "--help", data=False, check=True).stdout.split())
        if HELP_T not in text:
            problems.append("%s --help lacks %r" % (cmd, HELP_T))
    assert not problems, "\n".join(problems)
