"""The hooks' own stack use on a thread's first traced call, made in a signal
handler on an 8 KiB sigaltstack (doc/safety.md, issue 11 item 5): the
program paints its alt stack and prints the high-water mark; what the traced
run uses beyond the untraced run of the same program is the runtime's, and
must stay within the documented bound: 512 bytes for the
-finstrument-functions hooks, 1 KiB for the -pg -mfentry trampoline (whose
register save area is 352 of them), with -A argument capture too (a string
among the arguments).  Both runs bind every symbol at start (LD_BIND_NOW=1):
a lazily bound PLT entry runs the dynamic linker's resolver on that stack,
deeper than the hooks, traced or not.  Before: 648 bytes
(-finstrument-functions), 2112 (-pg), 3312 (-pg -A: a 1 KiB payload buffer
on the stack)."""
import os
import re
import subprocess

BOUND = {"sigaltstack-first-call": 512, "sigaltstack-first-call-fentry": 1024}


def used(stderr):
    m = re.search(r"^sigaltstack used: (\d+) of 8192 bytes$", stderr, re.M)
    assert m, stderr
    return int(m.group(1))


def check(ctx):
    # the handler ran to the end on the small stack, and was recorded
    assert ctx.record.stdout == "handler result 21\n", ctx.record.stdout
    env = dict(os.environ, LD_BIND_NOW="1")
    prog = os.path.join(ctx.work, "prog")
    plain = subprocess.run([prog], capture_output=True, text=True, env=env, timeout=60)
    assert plain.returncode == 0 and plain.stdout == "handler result 21\n", plain
    base = used(plain.stderr)
    runs = [("plain", [])]
    if ctx.case.endswith("-fentry"):
        runs.append(("args", ["-A", "work@arg1", "-A", "handler@arg1/s"]))
    for name, opts in runs:
        d = os.path.join(ctx.work, name + ".data")
        p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d] + opts + ["--", prog], capture_output=True,
                           text=True, env=env, timeout=60)
        assert p.returncode == 0 and p.stdout == "handler result 21\n", p
        hooks = used(p.stderr) - base
        assert hooks <= BOUND[ctx.case], "%s: the hooks used %d bytes of the alt stack (bound %d)" % (
            name, hooks, BOUND[ctx.case])
        rep = ctx.run("replay", "-d", d, check=True).stdout
        # (-A: the handler's int read as a string pointer: 0xa cannot be read)
        want = ["handler(<bad 0xa>) {", "  work(10);"] if opts else ["handler() {", "  work();"]
        lines = [l.split("| ", 1)[1] for l in rep.splitlines() if "| " in l]
        assert lines[:2] == want and lines[2] == "} /* handler */", rep
