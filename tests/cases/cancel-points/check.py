"""pthread_cancel against the runtime's own system calls: a traced call is
no cancellation point (prog.c: a mutex held across traced calls was left
locked by a cancel taken inside a hook, in round 0), and a deferred cancel
never hangs the program (wait.c: it hung in pthread_join).  The runtime
turns cancellation off while it starts a chunk."""


def check(ctx):
    assert ctx.record.stdout == "done\n", ctx.record.stdout
    ctx.record_build("prog-fentry", stdout="done\n")
    ctx.record_build("wait-fentry", stdout="cancelled 150\n")
