import os, re, subprocess

def check(ctx):
    # the pointer: exactly what the program printed, argument and return value
    ptr = re.search(r"^ptr (0x[0-9a-f]+)$", ctx.record.stdout, re.M).group(1)
    out = ctx.run("replay", "-F", "where", check=True).stdout
    assert re.search(r"\| where\(%s\) = %s;$" % (ptr, ptr), out, re.M), out
    # -A on a -finstrument-functions build: a clear usage error naming the flags that can
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    exe = os.path.join(ctx.work, "prog-cyg")
    subprocess.run([cc, "-finstrument-functions", "-O" + ctx.opt[1:], "-o", exe,
                    os.path.join(os.path.dirname(__file__), "prog.c")], check=True)
    p = ctx.run("record", "-d", os.path.join(ctx.work, "cyg.data"), "-A", "add@arg1", "--", exe, data=False)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "-finstrument-functions" in p.stderr and "-pg -mfentry" in p.stderr, p.stderr
    # a bad item is a usage error naming it
    p = ctx.run("record", "-A", "add@arg1/q", "--", exe, data=False)
    assert p.returncode == 2 and "item 1 of 'arg1/q'" in p.stderr, p.stderr
    p = ctx.run("record", "-R", "add@arg1", "--", exe, data=False)
    assert p.returncode == 2 and "retval" in p.stderr, p.stderr
