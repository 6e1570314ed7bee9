"""A trace left empty by record's own options (-N main, --trace=off, -t,
-C, -F, a time= trigger) is no sign of a build without hooks.  record said
so for -F only (for the others it asked whether the program was built with
-finstrument-functions), and replay, report, graph and info of such a
trace always gave that rebuild hint, though the session names the options."""
import os
import subprocess

HINT = "hint: build the program with -finstrument-functions"


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    cases = [
        (["-N", "main"], "-N 'main'", "-N main"),
        (["--trace=off"], "--trace=off", "--trace=off"),
        (["-t", "1s"], "-t '1000000000ns'", "-t 1s"),
        (["-C", "nosuch"], "-C 'nosuch'", "-C nosuch"),
        (["-F", "nosuch"], "-F 'nosuch'", "-F nosuch"),
        (["--filter=it's"], "-F 'it's'", "'--filter=it'\\''s'"),
        (["-T", "main@time=1s"], "-T 'main@time=1000000000'", "-T main@time=1s"),
    ]
    for i, (opts, rec_says, view_says) in enumerate(cases):
        d = os.path.join(ctx.work, "e%d.data" % i)
        p = subprocess.run([ctx.fntrace, "record", "-d", d, *opts, "--", prog], capture_output=True, text=True,
                           cwd=ctx.work)
        assert p.returncode == 0 and p.stdout == "13\n", p
        assert p.stderr.splitlines() == [
            "fntrace: no function events were recorded: recording started off (--trace=off) and nothing turned "
            "it on (fnt_enable() in the program, --signal SIG@trace_on or -T FUNC@trace_on)"
            if opts == ["--trace=off"] else
            "fntrace: no function events were recorded: the record-time filters (%s) left out every call that "
            "ran (their globs name functions as 'fntrace report' shows them; record without them to see the "
            "names)" % rec_says], (opts, p.stderr)
        want = ("fntrace: no function events were recorded in '%s': it was recorded with %s, which chose the "
                "calls to record, and none of the calls that ran was chosen (record without them to see the "
                "names)" % (d, view_says))
        for cmd in (["replay"], ["report"], ["graph"], ["export", "-f", "folded", "-o", "-"]):
            v = ctx.run(*cmd, "-d", d)
            assert v.returncode == 1 and HINT not in v.stderr, (opts, cmd, v.stderr)
            assert want in v.stderr.splitlines(), (opts, cmd, v.stderr, want)

    # a build without hooks still gets the rebuild hint, in record and in the views
    plain = os.path.join(ctx.work, "plain")
    subprocess.run(["gcc", "-o", plain, os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")],
                   check=True)
    d = os.path.join(ctx.work, "plain.data")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", plain], capture_output=True, text=True, cwd=ctx.work)
    assert "was '%s' built with -finstrument-functions?" % plain in p.stderr, p.stderr
    v = ctx.run("report", "-d", d)
    assert v.returncode == 1 and HINT in v.stderr, v.stderr
