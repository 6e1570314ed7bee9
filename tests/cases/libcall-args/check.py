import re


def check(ctx):
    assert ctx.record.stdout == "opened 1\n", ctx.record.stdout
    out = ctx.run("replay", check=True).stdout
    m = re.search(r'\| +open\("/etc/passwd", 0x0\) = (\d+);', out)
    assert m and int(m.group(1)) >= 3, out
    assert re.search(r"\| +malloc\(40\) = 0x[0-9a-f]+;", out), out
    assert re.search(r"\| +free\(\);", out), out
    # --auto-args: the built-in libc prototypes, no spec written
    d = ctx.work + "/auto.data"
    ctx.run("record", "--auto-args", "-d", d, "--", ctx.work + "/prog", check=True)
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert re.search(r'\| +open\("/etc/passwd", 0x0\) = \d+;', out), out
    assert re.search(r"\| +malloc\(40\) = 0x[0-9a-f]+;", out), out
    assert re.search(r'\| +printf\("opened %d\\n"\) = 9;', out), out      # (the characters it wrote)
    assert re.search(r"\| +free\(0x[0-9a-f]+\);", out), out
    assert re.search(r"\| +close\(\d+\) = 0;", out), out
    # without library calls, -A on a -finstrument-functions build is refused
    p = ctx.run("record", "--no-libcall", "-A", "open@arg1/s", "-d", ctx.work + "/no.data", "--", ctx.work + "/prog")
    assert p.returncode == 2 and "finstrument-functions" in p.stderr, (p.returncode, p.stderr)
    # with them, a spec naming the program's own function still is (its
    # hooks cannot see arguments), and the message names it
    p = ctx.run("record", "-A", "open_it@arg1/s", "-d", ctx.work + "/no2.data", "--", ctx.work + "/prog")
    assert p.returncode == 2 and "'open_it' (library functions work as they are)" in p.stderr, (p.returncode, p.stderr)
