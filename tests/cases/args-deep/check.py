import os, re, subprocess

def check(ctx):
    assert ctx.record.stdout == "12000\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout.splitlines()
    # the innermost call, a leaf at depth 12002 (main, then 12001 down frames)
    leaf = [l for l in out if "down(0, 12000) = 12000;" in l]
    assert len(leaf) == 1, leaf
    assert "down(12000, 0) {" in "\n".join(out[:4]), out[:4]
    closes = [l for l in out if re.search(r"\} = 12000 /\* down \*/$", l)]
    assert len(closes) == 12000, len(closes)
    # a shadow stack of 100 frames: deeper calls are not traced, the program is unharmed
    d = os.path.join(ctx.work, "small.data")
    env = dict(os.environ, FNTRACE_SHADOW_DEPTH="100")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "-A", "down@arg1", "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and p.stdout == "12000\n", (p.returncode, p.stdout, p.stderr)
    counts = {}
    for row in ctx.run("report", "-d", d, "--format", "csv", check=True).stdout.splitlines()[1:]:
        f = row.split(",")
        counts[f[0]] = int(f[1])
    assert counts == {"main": 1, "down": 99}, counts
