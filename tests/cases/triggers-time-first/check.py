"""-T quick@time=1ms on a program that cannot map memory once main has
started (prog.c): the thread's time= saves are mapped at its first event,
so both short quick() calls are left out with their subtrees, and no call's
time holds the runtime's own system call.  Before, the saves were mapped at
quick()'s first entry: the map failed here and both calls were kept."""


def check(ctx):
    assert ctx.record.stdout == "mmap denied: yes\n", (ctx.record.stdout, ctx.record.stderr)
    lines = [l[2:] for l in ctx.run("replay", "--no-pager", "--fields", "none", check=True).stdout.splitlines()
             if not l.startswith("#")]
    assert lines == ["main() {", "  leaf();", "} /* main */"], lines
    assert ctx.counts() == {"main": 1, "leaf": 1}, ctx.counts()
