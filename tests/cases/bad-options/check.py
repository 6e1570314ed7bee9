"""Usage errors: exit 2 and a first stderr line 'fntrace: ...' that names
the option and what is wrong with it.  Every sub-check runs; the failure
lists all that went wrong."""
import os


def first(p):
    return p.stderr.splitlines()[0] if p.stderr else ""


def check(ctx):
    problems = []
    prog = os.path.join(ctx.work, "prog")

    def expect(args, rc, *words, absent=()):
        p = ctx.run(*args, data=False)
        line = first(p)
        ok = p.returncode == rc and line.startswith("fntrace: ")
        ok = ok and all(w in line for w in words) and not any(w in p.stderr for w in absent)
        if not ok:
            problems.append("fntrace %s: exit %d, stderr %r (want exit %d, first line naming %s%s)" % (
                " ".join(args), p.returncode, p.stderr[:300], rc, words,
                ", without %s" % (absent,) if absent else ""))

    d = ctx.data
    # an option that takes a value, given none: say the value is missing,
    # not that the option is unknown
    for cmd, opt in (("replay", "-d"), ("replay", "--tid"), ("replay", "-F"), ("replay", "-N"),
                     ("replay", "-D"), ("report", "-s"), ("report", "--format"), ("info", "-d"),
                     ("record", "-d"), ("record", "--chunk-size"), ("record", "--clock")):
        expect([cmd, opt], 2, opt, absent=("unknown option",))
    # bad values
    for args, opt in ((["replay", "-d", d, "-D", "x"], "-D"),
                      (["replay", "-d", d, "--tid", "12,x"], "--tid"),
                      (["replay", "-d", d, "--prefix-map", "nonsense"], "--prefix-map"),
                      (["report", "-d", d, "-s", "speed"], "--sort"),
                      (["report", "-d", d, "--format", "xml"], "--format"),
                      (["record", "-d", d + ".x", "--chunk-size", "1", "--", prog], "--chunk-size"),
                      (["record", "-d", d + ".x", "--clock", "sundial", "--", prog], "--clock")):
        expect(args, 2, opt)
    # -D 0, the same everywhere (before, record refused it and the views
    # took it for no limit, while their message said "from 0")
    for cmd in (["record", "-d", d + ".x"], ["replay", "-d", d], ["report", "-d", d], ["graph", "-d", d],
                ["export", "-d", d, "--format", "folded", "-o", "-"]):
        expect(cmd + ["-D", "0"] + (["--", prog] if cmd[0] == "record" else []), 2,
               "option '-D/--depth' takes a depth of at least 1, not '0'")
    expect(["replay", "-d", d, "-D", "x"], 2, "option '-D/--depth': 'x' is not a depth from 1 to 1073741824")
    # unknown options and commands
    for cmd in ("record", "replay", "report", "info"):
        expect([cmd, "--no-such-option"], 2, "--no-such-option")
    expect(["frobnicate"], 2, "frobnicate")
    # bare fntrace: the command list, as git and perf print it (man-pages checks it)
    # --help works everywhere
    for args in (["--help"], ["record", "--help"], ["replay", "--help"], ["report", "--help"], ["info", "--help"]):
        p = ctx.run(*args, data=False)
        if p.returncode != 0 or "usage" not in p.stdout.lower():
            problems.append("fntrace %s: exit %d, stdout %r" % (" ".join(args), p.returncode, p.stdout[:200]))
    # flight recorder and stacks options
    expect(["record", "--ring", "16K", "--", prog], 2, "--ring", "too small")
    expect(["record", "--ring", "1M", "--chunk-size", "16K", "--", prog], 2, "--ring", "2 to 32")
    expect(["record", "--ring", "lots", "--", prog], 2, "--ring")
    expect(["record", "--snapshot-signal", "SIGFOO", "--", prog], 2, "--snapshot-signal", "SIGFOO")
    expect(["record", "--snapshot-signal", "9", "--", prog], 2, "--snapshot-signal")
    expect(["record", "--ring"], 2, "--ring")
    expect(["stacks", "--no-such-option"], 2, "--no-such-option")
    expect(["stacks", "-d", d, "-F", "main"], 2, "-F")
    p = ctx.run("stacks", "--help", data=False)
    if p.returncode != 0 or "usage" not in p.stdout.lower():
        problems.append("fntrace stacks --help: exit %d" % p.returncode)
    # a trace without captured stacks: exit 1 and say how to capture one
    expect(["stacks", "-d", d], 1, "fnt_capture_stack()")
    # a --tid that matches no thread is not a trace without function events
    expect(["replay", "-d", d, "--tid", "1"], 1, "--tid",
           absent=("no function events were recorded", "-finstrument-functions"))
    # a filter that matches nothing prints nothing, quietly
    for args in (["replay", "-F", "no_such_fn"], ["report", "-F", "no_such_fn"]):
        p = ctx.run(*args)
        if p.returncode >= 2 or "leaf" in p.stdout:
            problems.append("fntrace %s: exit %d, %r" % (" ".join(args), p.returncode, p.stdout[:300]))
    assert not problems, "\n".join(problems)
