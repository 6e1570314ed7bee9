import os, subprocess
def check(ctx):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.a")
    exe = os.path.join(ctx.work, "static-prog")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-static", "-" + ctx.opt, "-g", "-finstrument-functions", "-o", exe,
                    os.path.join(os.path.dirname(__file__), "prog.c"), lib, "-lpthread"],
                   check=True, capture_output=True)
    # record warns that it cannot preload, and the program still runs
    p = ctx.run("record", "-d", os.path.join(ctx.work, "rec.data"), "--", exe, data=False)
    assert p.returncode == 0 and "statically linked" in p.stderr, p
    env = dict(os.environ, FNTRACE_DIR=os.path.join(ctx.work, "static.data"))
    env.pop("LD_PRELOAD", None)
    assert subprocess.run([exe], env=env).returncode == 0
    counts = {}
    p = ctx.run("report", "-d", os.path.join(ctx.work, "static.data"), "--format", "csv", check=True)
    for line in p.stdout.splitlines()[1:]:
        counts[line.split(",")[0]] = int(line.split(",")[1])
    assert counts == {"main": 1, "work": 5, "deep": 3}, counts
