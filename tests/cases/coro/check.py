import os, subprocess


def lines(out):
    return [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]


def check(ctx):
    # the golden replay is the -finstrument-functions build's; the -pg -mfentry
    # and -fpatchable-function-entry builds of the same program must nest the
    # same, and every build prints what it prints untraced
    want = open(os.path.join(os.path.dirname(__file__), "expected", "replay")).read()
    want = [l.split("| ", 1)[1] for l in want.splitlines() if "| " in l]
    assert ctx.record.stdout == "got 1\ngot 4\ngot 9\ndone\n", ctx.record.stdout
    for prog in ("prog-fentry", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0 and plain.stdout == "got 1\ngot 4\ngot 9\ndone\n", plain
        d = os.path.join(ctx.work, "rec-" + prog)
        p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe],
                           capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert p.returncode == 0, (prog, p.returncode, p.stderr)
        assert p.stdout == plain.stdout, (prog, p.stdout)
        assert "out of sync" not in p.stderr, p.stderr
        got = lines(ctx.run("replay", "-d", d, check=True).stdout)
        assert got == want, (prog, "\n".join(got))
        # every call counted once, whatever stack it ran on
        counts = ctx.counts("-d", d)
        assert counts == {"main": 1, "next": 4, "generator": 1, "produce": 3, "square": 3, "yield": 3,
                          "consume": 3, "idle": 1}, (prog, counts)
    # report's unfiltered fast path follows the switches as the call layer
    # does (-D forces the call layer): the same times to the nanosecond
    for d in [ctx.data] + [os.path.join(ctx.work, "rec-" + p) for p in ("prog-fentry", "prog-patchable")]:
        fast = sorted(ctx.run("report", "-d", d, "--format", "csv", check=True).stdout.splitlines())
        layer = sorted(ctx.run("report", "-d", d, "--format", "csv", "-D", "100", check=True).stdout.splitlines())
        assert fast == layer, (d, fast, layer)
