"""pthread_cancel against the runtime's own system calls: a traced call is
no cancellation point (prog.c: a mutex held across traced calls was left
locked by a cancel taken inside a hook, in round 0), and a deferred cancel
never hangs the program (wait.c: it hung in pthread_join), and a dlopen
is no cancellation point either (dl.c: the thread was cancelled inside it,
and main's next dlopen hung), nor is a snapshot, from a trigger, the API or
the snapshot signal (snap.c: the thread was cancelled inside it with a
mutex held, and the snapshot lock stayed taken).  The runtime turns
cancellation off while it starts a chunk, while it writes a snapshot and
while it reads a new module's file, but not in a raw clone(CLONE_VM) child
on its parent's TLS (clonevm.c: the child's snapshots turned the parent's
cancellation off and on under it)."""
import os

SNAP_OPTS = {"trigger": ("-T", "snap_here@snapshot"), "api": (), "signal": ("--snapshot-signal", "SIGUSR2")}


def check_snap(ctx, prog, mode):
    """snap.c MODE: two rounds, each a thread with a cancel pending that
    takes a snapshot with the mutex held; cancelled at its testcancel."""
    d = os.path.join(ctx.work, "rec-%s-%s" % (prog, mode))
    p = ctx.run("record", "--ring", "1M", *SNAP_OPTS[mode], "-d", d, "--", os.path.join(ctx.work, prog), mode)
    tail = ", fnt_snapshot 0" if mode == "api" else ""
    want = "".join("round %d: past the snapshot, mutex free, cancelled%s\n" % (k, tail) for k in range(2))
    assert p.returncode == 0 and p.stdout == want, (prog, mode, p.returncode, p.stdout, p.stderr[-1500:])
    # both snapshots written (the first one's lock released), each complete
    # up to its round: the Nth holds N threads' thr (and snap_here, the
    # trigger's call)
    name = "api" if mode == "api" else mode
    snaps = sorted(x for x in os.listdir(d) if x.startswith("snapshot-"))
    assert snaps == ["snapshot-%s-1" % name, "snapshot-%s-2" % name], (prog, mode, snaps)
    for n in (1, 2):
        got = ctx.counts("-d", os.path.join(d, "snapshot-%s-%d" % (name, n)))
        want_counts = {"main": 1, "thr": n}
        if mode == "trigger":
            want_counts["snap_here"] = n
        assert got == want_counts, (prog, mode, n, got)
    got = ctx.counts("-d", d)
    assert got == {"main": 1, "thr": 2, **({"snap_here": 2} if mode == "trigger" else {})}, (prog, mode, got)
    # each thread unwound from thr (its testcancel), the trigger's call returned
    rp = ctx.run("replay", "--no-pager", "-d", d, check=True).stdout
    calls = [l.split("| ", 1)[1] for l in rp.splitlines() if not l.startswith("#")]
    thread = ["thr() {"] + (["  snap_here();"] if mode == "trigger" else []) + ["} /* thr (no return: unwound) */"]
    assert calls == ["main() {"] + thread * 2 + ["} /* main */"], (prog, mode, rp)


def check(ctx):
    assert ctx.record.stdout == "done\n", ctx.record.stdout
    ctx.record_build("prog-fentry", stdout="done\n")
    ctx.record_build("wait-fentry", stdout="cancelled 150\n")
    for prog in ("snap", "snap-fentry"):
        for mode in ("trigger", "api", "signal"):
            check_snap(ctx, prog, mode)
    # clonevm.c: (untraced, fnt_snapshot fails: no run without fntrace)
    d = os.path.join(ctx.work, "rec-clonevm")
    p = ctx.run("record", "-d", d, "--", os.path.join(ctx.work, "clonevm"))
    want = "traced\nenough snapshots, none failed\ncancellation found off 0 times, on 0 times; at the end on\n"
    assert p.returncode == 0 and p.stdout == want, (p.returncode, p.stdout, p.stderr[-1500:])
    assert ctx.counts("-d", d) == {"main": 1, "in_parent": 2}, ctx.counts("-d", d)
    # the child's last snapshot: the parent's calls up to the clone
    assert ctx.counts("-d", os.path.join(d, "snapshot-child")) == {"main": 1, "in_parent": 1}
    # dl.c: with library calls traced (record's default) and with a name
    # filter (both read the new module's ELF file inside the dlopen)
    for args in ((), ("-F", "main")):
        ctx.record_build("dl", stdout="thread: dlopen 1, returned\nmain: dlopen ok\n", record_args=args)
