import os, re, subprocess
# The program ran to its end (record returns its status: 0, not killed by
# SIGXFSZ, nor by the snapshot it asked for once its limit was below the
# trace's size), the trace file stayed within the program's 256 KiB limit,
# and every event the runtime could not write is counted as lost for lack of
# space: recorded + lost = the 400,002 events the program made.  The same
# holds for a -pg -mfentry build, where a call left out loses its exit too.
def verify(ctx, data, stdout):
    assert stdout == "done 1, snapshot -1\n", stdout
    files = [f for f in os.listdir(data) if f.endswith(".fnt")]
    assert len(files) == 1, files
    assert os.path.getsize(os.path.join(data, files[0])) <= 256 << 10
    info = ctx.run("info", "-d", data, check=True).stdout
    events = int(re.search(r"^events: (\d+)$", info, re.M).group(1))
    lost = re.search(r"lost: (\d+) in signal handlers, (\d+) for lack of space", info)
    assert lost and lost.group(1) == "0", info
    assert events + int(lost.group(2)) == 400002, info
    assert re.search(r"^lost: %s$" % lost.group(2), info, re.M), info
    assert 50000 < events < 200000, info

def check(ctx):
    verify(ctx, ctx.data, ctx.record.stdout)
    libdir = os.path.dirname(ctx.fntrace)
    exe = os.path.join(ctx.work, "prog-pg")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-" + ctx.opt, "-g", "-pg", "-mfentry", "-I" + os.path.join(libdir, "..", "include"),
                    "-o", exe, os.path.join(os.path.dirname(__file__), "prog.c"),
                    "-L" + libdir, "-lfntrace", "-Wl,-rpath," + libdir], check=True)
    data = os.path.join(ctx.work, "pg.data")
    p = subprocess.run([ctx.fntrace, "record", "-d", data, "--chunk-size", "16K", "--", exe],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr)
    verify(ctx, data, p.stdout)
