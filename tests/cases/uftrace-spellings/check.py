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
    assert not problems, "\n".join(problems)
