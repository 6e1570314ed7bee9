"""A forked child that cannot create its trace file, though the directory
is writable to it (its RLIMIT_NOFILE is 0), runs untraced and says so in
its parent's file: `info` lists it.  Before, it vanished: one process,
`lost: 0`, nothing untraced."""


def check(ctx):
    assert ctx.record.stdout == "1000000 0\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    assert "processes: 1\n" in info, info
    assert "untraced: 1 process started by the program" in info, info
    assert "untraced children: 1 forked child could not create its trace file and ran untraced" in info, info
