"""pthread_cancel against the runtime's own system calls: a traced call is
no cancellation point (prog.c: a mutex held across traced calls was left
locked by a cancel taken inside a hook, in round 0), and a deferred cancel
never hangs the program (wait.c: it hung in pthread_join), and a dlopen
is no cancellation point either (dl.c: the thread was cancelled inside it,
and main's next dlopen hung).  The runtime turns cancellation off while
it starts a chunk and while it reads a new module's file."""


def check(ctx):
    assert ctx.record.stdout == "done\n", ctx.record.stdout
    ctx.record_build("prog-fentry", stdout="done\n")
    ctx.record_build("wait-fentry", stdout="cancelled 150\n")
    # dl.c: with library calls traced (record's default) and with a name
    # filter (both read the new module's ELF file inside the dlopen)
    for args in ((), ("-F", "main")):
        ctx.record_build("dl", stdout="thread: dlopen 1, returned\nmain: dlopen ok\n", record_args=args)
