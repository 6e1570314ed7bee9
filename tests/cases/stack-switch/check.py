import os, subprocess


def lines(out):
    return [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]


def check(ctx):
    # the golden replay is the -finstrument-functions build's: the coroutines'
    # frames stay open while suspended, close when they resume and return,
    # and the two left suspended at the end close as "trace ended", never as
    # "unwound".  The -pg -mfentry and -fpatchable-function-entry builds of
    # the same program (which swap return addresses on all three stacks)
    # must run as untraced and nest the same.
    want = lines(open(os.path.join(os.path.dirname(__file__), "expected", "replay")).read())
    assert ctx.record.stdout == "33\n", ctx.record.stdout
    assert not any("unwound" in l for l in want), want
    counts = {"main": 1, "run": 1, "new_stack": 2, "yield_to": 7, "ping": 1, "pong": 1, "ping_step": 3,
              "pong_step": 3, "leaf": 6}
    assert ctx.counts() == counts, ctx.counts()
    for prog in ("prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0 and plain.stdout == "33\n", plain
        d = os.path.join(ctx.work, "rec-" + prog)
        p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe],
                           capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert p.returncode == 0, (prog, p.returncode, p.stderr)
        assert p.stdout == plain.stdout, (prog, p.stdout)
        got = lines(ctx.run("replay", "-d", d, check=True).stdout)
        assert got == want, (prog, "\n".join(got))
        assert ctx.counts("-d", d) == counts, (prog, ctx.counts("-d", d))
