import os

def check(ctx):
    # --patch: only the functions named are patched (and those with a spec); the rest cost nothing
    d = os.path.join(ctx.work, "only.data")
    p = ctx.run("record", "-d", d, "--patch", "untouched", "-A", "half@fparg1", "--",
                os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0 and p.stdout == "6\npatch\n-1.5\n42\n", (p.returncode, p.stdout, p.stderr)
    out = ctx.run("replay", "-d", d, check=True).stdout
    lines = [l.split("| ", 1)[1].strip() for l in out.splitlines() if "| " in l]
    assert lines == ["half(-3);", "untouched();"], lines
