"""execve with library calls on: a failed one returns through its swapped
return address (-R shows its -1), a successful one leaves its frame open,
closed as '(no return: exec)', and the new image is traced as the same
process."""
import os


def check(ctx):
    assert ctx.record.stdout == "missing: 1\nsecond image\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    assert "processes: 2\n" in info, info
    c = ctx.counts()
    assert c["execve"] == 2 and c["main"] == 2 and c["second"] == 1, c
    d = os.path.join(ctx.work, "ret.data")
    p = ctx.run("record", "-q", "-R", "execve@retval/d", "-d", d, "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0 and p.stdout == ctx.record.stdout, (p.returncode, p.stdout, p.stderr)
    out = [l.split("| ", 1)[1] for l in ctx.run("replay", "-d", d, check=True).stdout.splitlines()[1:]]
    assert out[:3] == ["main() {", "  try_missing() {", "    execve() = -1;"], out
    assert "    execve() {" in out and "    } /* execve (no return: exec) */" in out, out
