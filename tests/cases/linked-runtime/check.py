import os, subprocess
def check(ctx):
    libdir = os.path.dirname(ctx.fntrace)
    src = os.path.join(os.path.dirname(__file__), "prog.c")
    exe = os.path.join(ctx.work, "linked")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-o", exe, src, "-L" + libdir,
                    "-lfntrace", "-Wl,-rpath," + libdir], check=True)
    env = dict(os.environ, FNTRACE_DIR=os.path.join(ctx.work, "env.data"))
    env.pop("LD_PRELOAD", None)
    assert subprocess.run([exe], env=env, cwd=ctx.work).returncode == 0
    counts = {}
    p = ctx.run("report", "-d", os.path.join(ctx.work, "env.data"), "--format", "csv", check=True)
    for line in p.stdout.splitlines()[1:]:
        name, calls = line.split(",")[:2]
        counts[name] = int(calls)
    assert counts == {"main": 1, "step": 3}, counts
    # without FNTRACE_DIR it records into ./fntrace.data; FNTRACE_DISABLE=1 records nothing
    env.pop("FNTRACE_DIR")
    assert subprocess.run([exe], env=env, cwd=ctx.work).returncode == 0
    assert os.path.isdir(os.path.join(ctx.work, "fntrace.data"))
    p = ctx.run("replay", "-d", os.path.join(ctx.work, "fntrace.data"), check=True)
    assert p.stdout.count("step();") == 3, p.stdout
    env["FNTRACE_DIR"] = os.path.join(ctx.work, "off.data")
    env["FNTRACE_DISABLE"] = "1"
    assert subprocess.run([exe], env=env, cwd=ctx.work).returncode == 0
    assert not os.path.exists(os.path.join(ctx.work, "off.data"))
