"""A pager and colour on a terminal, never otherwise.  Each run is made
through a real pseudo-terminal (python's pty), as a user's shell runs it:
the pager gets the output with LESS=FRSX unless the user set LESS,
FNTRACE_PAGER comes before PAGER, --no-pager and --color=never turn each
off, real `less` shows a short output and quits, and through a pipe there
is neither pager nor colour unless --color=always asks."""
import os
import re
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from ttyrun import on_tty

RED = "\033[31m"


def check(ctx):
    base = {k: v for k, v in os.environ.items() if k not in ("PAGER", "FNTRACE_PAGER", "LESS", "LD_PRELOAD")}
    base["TERM"] = "xterm"
    log = os.path.join(ctx.work, "pager.log")
    fake = "echo \"LESS=$LESS\" > '%s'; cat >> '%s'" % (log, log)
    problems = []

    for cmd in ("replay", "report", "graph"):
        if os.path.exists(log):
            os.unlink(log)
        rc, shown = on_tty([ctx.fntrace, cmd, "-d", ctx.data], dict(base, FNTRACE_PAGER=fake, PAGER="false"),
                           ctx.work)
        paged = open(log).read() if os.path.exists(log) else ""
        if rc != 0 or not paged.startswith("LESS=FRSX\n") or "slow" not in paged or RED not in paged:
            problems.append("%s on a tty: exit %d, pager got %r" % (cmd, rc, paged[:300]))
        if "slow" in shown:
            problems.append("%s on a tty: the output went around the pager: %r" % (cmd, shown[:300]))
        # a duration is red from 1 ms to 1 s: slow's 3 ms (and main's), and
        # any quick() call the scheduler preempted for that long on a loaded
        # machine: each duration is red exactly when it reads in ms, and
        # slow's line is red
        lines = paged.splitlines()
        wrong = [l for l in lines for red, unit in re.findall(r"(\033\[31m)? *\d+\.\d{3} +(us|ms|s)\b", l)
                 if bool(red) != (unit == "ms")]
        if cmd != "report" and (wrong or not any(RED in l and "slow" in l for l in lines)):
            problems.append("%s: red durations wrong in %r" % (cmd, wrong or lines))

    # the user's LESS is kept; PAGER is used without FNTRACE_PAGER
    os.unlink(log)
    rc, _ = on_tty([ctx.fntrace, "replay", "-d", ctx.data], dict(base, PAGER=fake, LESS="-R"), ctx.work)
    paged = open(log).read() if os.path.exists(log) else ""
    if rc != 0 or not paged.startswith("LESS=-R\n") or "quick();" not in paged:
        problems.append("PAGER with LESS=-R: exit %d, pager got %r" % (rc, paged[:200]))

    # --no-pager: straight to the terminal, coloured; --color=never: plain
    os.unlink(log)
    rc, shown = on_tty([ctx.fntrace, "replay", "-d", ctx.data, "--no-pager"], dict(base, FNTRACE_PAGER=fake),
                       ctx.work)
    if rc != 0 or os.path.exists(log) or "slow();" not in shown or RED not in shown:
        problems.append("--no-pager: exit %d, terminal got %r" % (rc, shown[:300]))
    rc, shown = on_tty([ctx.fntrace, "report", "-d", ctx.data, "--no-pager", "--color=never"], base, ctx.work)
    if rc != 0 or "slow" not in shown or "\033[" in shown:
        problems.append("--color=never: exit %d, terminal got %r" % (rc, shown[:300]))

    # real less, as a user has it: a short output is shown whole and less quits (-F)
    if shutil.which("less"):
        rc, shown = on_tty([ctx.fntrace, "replay", "-d", ctx.data], base, ctx.work)
        if rc != 0 or shown.count("quick();") != 3 or "slow();" not in shown:
            problems.append("less: exit %d, terminal got %r" % (rc, shown[:400]))

    # a pager that is not there: the output goes to the terminal, with a
    # warning naming it (before, sh said "not found" and nothing was shown,
    # with exit 0)
    for var in ("FNTRACE_PAGER", "PAGER"):
        rc, shown = on_tty([ctx.fntrace, "replay", "-d", ctx.data], dict(base, **{var: "no-such-pager-x -R"}),
                           ctx.work)
        want = "fntrace: warning: pager 'no-such-pager-x' not found (%s); writing to the terminal" % var
        if rc != 0 or shown.count("quick();") != 3 or want not in shown:
            problems.append("%s=no-such-pager-x: exit %d, terminal got %r" % (var, rc, shown[:400]))
    # a pager that runs but fails without reading: an error, and exit 1
    rc, shown = on_tty([ctx.fntrace, "report", "-d", ctx.data], dict(base, FNTRACE_PAGER="exit 126"), ctx.work)
    if rc != 1 or "fntrace: the pager 'exit 126' failed (exit status 126); use --no-pager" not in shown:
        problems.append("a failing pager: exit %d, terminal got %r" % (rc, shown[:400]))

    # a SIGPIPE from stderr (into a pipe nobody reads) while a pager still
    # reads stdout: fntrace ends of it, as before the pager was watched
    # (the handler that reaps the pager waited for it, which waited for us)
    # (a pipe whose read end is closed before fntrace starts: its warning
    # raises SIGPIPE every time)
    rd, wr = os.pipe()
    os.close(rd)
    os.set_inheritable(wr, True)
    script = "'%s' replay -d '%s' -F no_such_function 2>&%d; echo \"status $?\"" % (ctx.fntrace, ctx.data, wr)
    try:
        rc, shown = on_tty(["/bin/bash", "-c", script], dict(base, FNTRACE_PAGER="cat > /dev/null"), ctx.work,
                           limit=20)
    finally:
        os.close(wr)
    if "status 141" not in shown:
        problems.append("SIGPIPE from stderr with a pager: %r" % shown[-300:])

    # not a terminal: no pager, no colour, whatever the environment says
    p = subprocess.run([ctx.fntrace, "replay", "-d", ctx.data], capture_output=True, text=True,
                       env=dict(base, FNTRACE_PAGER=fake))
    if p.returncode != 0 or os.path.exists(log) or "\033[" in p.stdout or p.stdout.count("quick();") != 3:
        problems.append("pipe: exit %d, stdout %r" % (p.returncode, p.stdout[:300]))
    p = subprocess.run([ctx.fntrace, "replay", "-d", ctx.data, "--color=always"], capture_output=True, text=True,
                       env=base)
    if RED not in p.stdout:
        problems.append("--color=always through a pipe: %r" % p.stdout[:300])
    p = subprocess.run([ctx.fntrace, "replay", "-d", ctx.data, "--color=sometimes"], capture_output=True,
                       text=True, env=base)
    if p.returncode != 2 or p.stderr.splitlines()[0] != "fntrace: option '--color' takes auto, always or never, not 'sometimes'":
        problems.append("--color=sometimes: %d %r" % (p.returncode, p.stderr))
    assert not problems, "\n".join(problems)
