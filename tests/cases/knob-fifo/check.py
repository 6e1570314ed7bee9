import os, subprocess
# The settings file is read only when it is a regular file: from one, the
# argument specs apply; a FIFO (no writer: open() would wait forever) and a
# character device (never ends) are passed over, and the program runs and
# is traced as without specs.
def run(ctx, name, argsfile):
    data = os.path.join(ctx.work, name + ".data")
    env = dict(os.environ, LD_PRELOAD=os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.so"),
               FNTRACE_DIR=data, FNTRACE_ARGS_FILE=argsfile)
    try:
        p = subprocess.run([os.path.join(ctx.work, "prog")], env=env, cwd=ctx.work, capture_output=True,
                           text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("the program hung with FNTRACE_ARGS_FILE=%s" % argsfile)
    assert p.returncode == 0 and p.stdout == "5\n", (p.returncode, p.stdout, p.stderr)
    return ctx.run("replay", "-d", data, check=True).stdout

def check(ctx):
    spec = os.path.join(ctx.work, "specs")
    with open(spec, "w") as f:
        f.write("add@arg1,arg2\n")
    out = run(ctx, "regular", spec)
    assert "add(2, 3);" in out, out
    fifo = os.path.join(ctx.work, "specs.fifo")
    os.mkfifo(fifo)
    for name, path in (("fifo", fifo), ("device", "/dev/zero")):
        out = run(ctx, name, path)
        assert "add();" in out and "add(2" not in out, out
        assert out.count("main() {") == 1, out
