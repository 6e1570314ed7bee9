import grp, os, subprocess
# The same program, linked with -lfntrace, run twice with FNTRACE_DIR set:
# as an ordinary program it records its calls there; made setgid (secure
# execution: AT_SECURE is 1) it runs exactly as before and writes no trace
# at all, neither into FNTRACE_DIR nor into ./fntrace.data.
def check(ctx):
    libdir = os.path.dirname(ctx.fntrace)
    src = os.path.join(os.path.dirname(__file__), "prog.c")
    exe = os.path.join(ctx.work, "linked")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-o", exe, src, "-L" + libdir,
                    "-lfntrace", "-Wl,-rpath," + libdir], check=True)
    env = dict(os.environ, FNTRACE_DIR=os.path.join(ctx.work, "plain.data"))
    env.pop("LD_PRELOAD", None)
    p = subprocess.run([exe], env=env, cwd=ctx.work, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "secure 0, 3\n", (p.returncode, p.stdout, p.stderr)
    out = ctx.run("replay", "-d", env["FNTRACE_DIR"], check=True).stdout
    assert out.count("step();") == 3, out
    if os.geteuid() != 0:
        print("secure-exec: not root, the setgid half is skipped")
        return
    gid = grp.getgrnam("nogroup").gr_gid
    os.chown(exe, -1, gid)
    os.chmod(exe, 0o2755)
    env["FNTRACE_DIR"] = os.path.join(ctx.work, "setgid.data")
    p = subprocess.run([exe], env=env, cwd=ctx.work, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "secure 1, 3\n", (p.returncode, p.stdout, p.stderr)
    assert p.stderr == "", p.stderr
    assert not os.path.exists(env["FNTRACE_DIR"]), os.listdir(env["FNTRACE_DIR"])
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data"))
