import os
import subprocess


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    d = os.path.join(ctx.work, "re.data")
    p = ctx.run("record", "-d", d, "-F", "mi.*", "--", prog)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert "fntrace: warning: option '-F': 'mi.*' looks like a regular expression (uftrace's filters); " \
           "fntrace takes globs: 'mi*'?" in lines, p.stderr
    assert "fntrace: no function events were recorded: the record-time filters (-F 'mi.*') left out every " \
           "call that ran (their globs name functions as 'fntrace report' shows them; record without them " \
           "to see the names)" in lines, p.stderr
    assert "built with" not in p.stderr, p.stderr
    # the glob it names records mid and its callee
    p = ctx.run("record", "-q", "-d", d, "-F", "mi*", "--", prog)
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr
    assert ctx.counts("-d", d) == {"mid": 1, "leaf": 1}, ctx.counts("-d", d)
    # info says which options recorded it (uftrace's info shows its whole command line)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "\nrecord options: -q -d %s -F 'mi*'\n" % d in info, info
    # read time: the same hint, for -N, -T and -P too
    for args, opt, pat, glob in ((["replay", "-N", "^leaf$"], "-N", "^leaf$", "leaf"),
                                 (["report", "-T", "le.+@hide"], "-T", "le.+", "le*"),
                                 (["graph", "-F", "."], "-F", ".", "*")):
        p = ctx.run(*args)
        want = "fntrace: warning: option '%s': '%s' looks like a regular expression (uftrace's filters); " \
               "fntrace takes globs: '%s'?" % (opt, pat, glob)
        assert want in p.stderr.splitlines(), (args, p.stderr)
    p = ctx.run("record", "-q", "-d", d, "-P", ".", "--", prog)
    assert "option '-P': '.' looks like a regular expression" in p.stderr, p.stderr
    # a plain glob, or a C++ name, is not taken for a regex
    for pat in ("mid", "geo::*", "operator()", "f<int>"):
        p = ctx.run("replay", "-F", pat)
        assert "regular expression" not in p.stderr, (pat, p.stderr)
    # 'fntrace record prog' (no ./): found in this directory, not in $PATH
    p = ctx.run("record", "-q", "-d", d, "--", "prog", cwd=ctx.work)
    assert p.returncode == 127 and p.stderr == "fntrace: cannot run 'prog': not found in $PATH (the one in this " \
        "directory is './prog')\n", (p.returncode, p.stderr)
    # a directory with a uftrace trace only: the error names it
    u = os.path.join(ctx.work, "u")
    os.makedirs(os.path.join(u, "uftrace.data"), exist_ok=True)
    p = ctx.run("replay", data=False, cwd=u)
    assert p.returncode == 1 and "this directory has uftrace's 'uftrace.data', which 'uftrace replay' reads: " \
        "run 'fntrace record' first" in p.stderr, (p.returncode, p.stderr)
    # and what that hint names, read as it says: not an fntrace trace, said so
    for f in ("info", "task.txt"):
        open(os.path.join(u, "uftrace.data", f), "w").close()
    p = ctx.run("replay", "-d", "uftrace.data", data=False, cwd=u)
    assert p.returncode == 1 and p.stderr.startswith("fntrace: 'uftrace.data' is a uftrace trace, not an fntrace "
                                                     "one (read it with 'uftrace replay -d uftrace.data'"), p.stderr
    # --srcline on a build without -g: a warning, not silence
    nog = os.path.join(ctx.work, "prog-nog")
    subprocess.run([ctx.compiler, "-finstrument-functions", "-O0", "-g0", "-o", nog,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")], check=True)
    d = os.path.join(ctx.work, "nog.data")
    ctx.run("record", "-q", "-d", d, "--", nog, check=True)
    want = "fntrace: warning: --srcline: none of the functions shown has a source line: build the program " \
           "with -g (or name the directory of its debug files with --debug-dir)\n"
    for args in (["--srcline"], ["--fields", "srcline"]):
        p = ctx.run("replay", "-d", d, "--no-pager", *args, check=True)
        assert p.stderr == want and "mid()" in p.stdout, (args, p.stderr)
    p = ctx.run("replay", "--no-pager", "--srcline", check=True)
    assert "--srcline" not in p.stderr and "[prog.c:" in p.stdout, p.stderr
    # info's duration says where its zero is, and where the calls start
    import json, re
    info = ctx.run("info", check=True).stdout
    m = re.search(r"^duration: ([\d.]+) (us|ms|s) \(from the start of the recording to its last event; the first "
                  r"event at ([\d.]+) (us|ms|s)\)$", info, re.M)
    assert m, info
    unit = {"us": 1e3, "ms": 1e6, "s": 1e9}
    first = min(json.loads(l)["start_ns"] for l in ctx.run("replay", "-f", "json", check=True).stdout.splitlines())
    assert -1 < first - float(m.group(3)) * unit[m.group(4)] < 0.001 * unit[m.group(4)], (m.groups(), first)
