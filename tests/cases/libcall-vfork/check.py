"""vfork in a -finstrument-functions build with library calls on: the
parent's vfork() is a zero-length call (its return address is never
swapped: the child returns through the same stack first), each child writes
a file of its own at the parent's depth (_exit stays open to its end; execv
is closed by the exec), and the parent goes on at its own depth."""


def check(ctx):
    assert ctx.record.stdout == "6 5\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    # the parent, the child that _exits, the child that execs (before and after)
    assert "processes: 4\n" in info and info.count("ended: replaced by exec") == 1, info
    c = ctx.counts()
    assert c == {"main": 2, "spawn_exit": 1, "spawn_exec": 1, "vfork": 2, "in_child": 1, "_exit": 1, "execv": 1,
                 "exec_main": 1, "waitpid": 2, "printf": 1}, c
