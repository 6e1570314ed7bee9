import os, subprocess

WANT = ("backtrace: level4 level3 level2 level1 main\nunwind: level4 level3 level2 level1 main\nk=4\n"
        "backtrace: level4 level3 level2 level1 main\nunwind: level4 level3 level2 level1 main\nk=13\n")
CALLS = ["main() {"] + ["  " * (i + 1) + "level%d() {" % (i + 1) for i in range(4)]


def check(ctx):
    # backtrace() and _Unwind_Backtrace in a traced call 4 deep name the same
    # frames as the untraced run (no trampoline frames, no early stop, no
    # crash), in the -pg -mfentry and the patchable build; the calls are traced
    for prog, rec in (("prog", ctx.record), ("prog-patchable", None)):
        exe = os.path.join(ctx.work, prog)
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert plain.returncode == 0 and plain.stdout == WANT, (prog, plain.stdout)
        d = ctx.data
        if rec is None:
            d = os.path.join(ctx.work, "rec-" + prog)
            rec = subprocess.run([ctx.fntrace, "record", "-d", d, "--", exe],
                                 capture_output=True, text=True, cwd=ctx.work, timeout=60)
        assert rec.returncode == 0, (prog, rec.returncode, rec.stderr)
        assert rec.stdout == plain.stdout, (prog, rec.stdout)
        out = ctx.run("replay", "-d", d, check=True).stdout
        lines = [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]
        assert lines[:5] == CALLS, (prog, out)
        counts = ctx.counts("-d", d)
        assert {k: counts.get(k) for k in ("main", "level1", "level2", "level3", "level4")} == \
            {"main": 1, "level1": 2, "level2": 2, "level3": 2, "level4": 2}, (prog, counts)
        # the callback ran once per frame of each walk, its returns traced too
        assert counts.get("collect", 0) >= 12 and counts["collect"] % 2 == 0, (prog, counts)
