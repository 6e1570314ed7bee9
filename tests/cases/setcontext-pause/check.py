import os

# The golden replay is the -finstrument-functions build's: each setcontext
# back to getcontext's context closes go_back as unwound.  The -pg -mfentry
# and patchable builds give the same replay (their shadow stacks drop the
# frame at the jump) and print what the program prints.  Before, the call
# after the pause had emptied the window the runtime tested the context's
# stack pointer against: no UNWIND, and the second go_back nested in the
# first.


def lines(out):
    return [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]


def check(ctx):
    want = lines(open(os.path.join(os.path.dirname(__file__), "expected", "replay")).read())
    assert ctx.record.stdout == "3\n", ctx.record.stdout
    for prog in ("prog-fentry", "prog-patchable"):
        d, rec = ctx.record_build(prog, "3\n")
        got = lines(ctx.run("replay", "-d", d, check=True).stdout)
        assert got == want, (prog, "\n".join(got))
