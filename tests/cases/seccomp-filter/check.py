"""A program under a seccomp filter that kills it for the system calls a
plain program never makes: the runtime makes none of them on its common
path, so the program and its forked child end as they would untraced
(exit status 3, the child's 0, the output) with every call recorded.  The
runtime asked for a pidfd of record at every process exit (to tell a
killed record, a zombie, from a live one), and the filter killed the
program there: SIGSYS, status 159."""


def check(ctx):
    assert ctx.record.stdout == "20000000000 0\n", ctx.record.stdout
    assert "signal" not in ctx.record.stderr, ctx.record.stderr
    info = ctx.run("info", check=True).stdout
    assert "status: exited with 3" in info, info
