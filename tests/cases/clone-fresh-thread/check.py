import os, re

# Four threads that have made no traced call each clone a child onto their
# own thread-local storage (libc's clone(), libc's syscall(SYS_clone), and
# two by a `syscall` instruction), then make 1000 calls.  Each thread has
# exactly its 1000 calls (before: none, 8000 of the 12,004 lost events
# were the threads' own, and the children of the instruction routes were
# recorded as the threads); the three children that run beside their
# thread on a stack of their own are skipped and counted (2002 events
# each); the hand-made vfork's child is a process of its own with its
# 1001 calls.  The same in the -finstrument-functions, -pg -mfentry and
# patchable builds.  With library calls traced (as `record` does by
# default), the child of syscall(SYS_clone, CLONE_VM | CLONE_VFORK) came
# back through the return trampoline of the traced syscall() call and
# overwrote the frames its parent resumed in (SIGSEGV).

ROUTES = ("clone", "syscall", "asm-clone", "asm-vfork")


def pids(out, what):
    got = dict(l.split() for l in out.splitlines())
    assert sorted(got) == sorted(ROUTES), (what, out)
    return got


def rows(ctx, d):
    got = {}
    for r in ctx.csv("-d", d, "--threads"):
        got.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
    return got


def check_trace(ctx, d, out, what):
    child = pids(out, what)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert re.search(r"^processes: 2$", info, re.M), (what, info)
    assert re.search(r"^lost: 6006$", info, re.M), (what, info)
    assert re.search(r"^  lost: 0 in signal handlers, 0 for lack of space, 6006 in children without TLS of their "
                     r"own \(vfork, clone\), 0 module records$", info, re.M), (what, info)
    got = rows(ctx, d)
    v = child["asm-vfork"]
    assert got.pop(v, None) == {"child_fn": 1, "in_child": 1000}, (what, got)
    assert len(got) == 4 and all(c == {"in_thread": 1000} for c in got.values()), (what, got)
    assert not set(got) & set(child.values()), (what, got, child)
    lines = [l.split("| ", 1)[1] for l in ctx.run("replay", "-d", d, "--tid", v, check=True).stdout.splitlines()
             if "| " in l and not l.startswith("#")]
    assert lines == ["child_fn() {"] + ["  in_child();"] * 1000 + ["} /* child_fn */"], (what, lines[:2], lines[-2:])


def check_libcalls(ctx, what):
    # library calls traced: the syscall() route's parent survives its child
    d, r = ctx.record_build("prog", env=dict(os.environ, FNTRACE_LIBCALL="1"))
    child = pids(r.stdout, what)
    got = rows(ctx, d)
    assert got.pop(child["asm-vfork"], None) == {"child_fn": 1, "in_child": 1000}, (what, got)
    threads = [c for c in got.values() if "in_thread" in c]
    assert len(threads) == 4 and all(c["in_thread"] == 1000 for c in threads), (what, got)
    assert [c.get("syscall") for c in threads].count(1) == 1, (what, got)


def check(ctx):
    check_trace(ctx, ctx.data, ctx.record.stdout, "prog")
    check_libcalls(ctx, "prog")
    for prog in ("prog-fentry", "prog-patchable"):
        d, r = ctx.record_build(prog)
        check_trace(ctx, d, r.stdout, prog)
