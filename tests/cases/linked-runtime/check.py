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
    # run again on its own: a new trace, the earlier one moved to
    # fntrace.data.old (never two runs mixed in one directory); a third run
    # replaces the .old
    def procs(d):
        return sorted(f for f in os.listdir(os.path.join(ctx.work, d)) if f.endswith(".fnt"))
    first = procs("fntrace.data")
    assert len(first) == 1, first
    for run in (2, 3):
        before = procs("fntrace.data")
        assert subprocess.run([exe], env=env, cwd=ctx.work).returncode == 0
        assert procs("fntrace.data.old") == before, (run, procs("fntrace.data.old"), before)
        now = procs("fntrace.data")
        assert len(now) == 1 and now != before, (run, now, before)
        p = ctx.run("replay", "-d", os.path.join(ctx.work, "fntrace.data"), check=True)
        assert p.stdout.count("step();") == 3, p.stdout
    # a file that is not fntrace's in ./fntrace.data: nothing is moved or
    # removed, nothing recorded, and the program still runs
    with open(os.path.join(ctx.work, "fntrace.data", "notes.txt"), "w") as f:
        f.write("mine\n")
    keep, old = procs("fntrace.data"), procs("fntrace.data.old")
    p = subprocess.run([exe], env=env, cwd=ctx.work, capture_output=True, text=True)
    assert p.returncode == 0, p
    assert "not recording (set FNTRACE_DIR)" in p.stderr, p.stderr
    assert procs("fntrace.data") == keep and procs("fntrace.data.old") == old
    assert open(os.path.join(ctx.work, "fntrace.data", "notes.txt")).read() == "mine\n"
    env["FNTRACE_DIR"] = os.path.join(ctx.work, "off.data")
    env["FNTRACE_DISABLE"] = "1"
    assert subprocess.run([exe], env=env, cwd=ctx.work).returncode == 0
    assert not os.path.exists(os.path.join(ctx.work, "off.data"))
