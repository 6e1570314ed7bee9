import os, re, resource, signal, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from procwait import wait_gone
# The program ran to its end (record returns its status: 0, not killed by
# SIGXFSZ, nor by the snapshot it asked for once its limit was below the
# trace's size), the trace file stayed within the program's 256 KiB limit,
# and every event the runtime could not write is counted as lost for lack of
# space: recorded + lost = the 400,002 events the program made.  The same
# holds for a -pg -mfentry build, where a call left out loses its exit too.
# Then the limit set by the shell before `fntrace record`: record itself
# must not die of SIGXFSZ (it did, status 153, creating its ring of buffers,
# before the program even started), and the program sees the limit and the
# SIGXFSZ disposition it sees without fntrace.
def lost_counts(ctx, data):
    """events recorded, and lost (every one of them for lack of space)"""
    info = ctx.run("info", "-d", data, check=True).stdout
    events = int(re.search(r"^events: (\d+)$", info, re.M).group(1))
    lost = int(re.search(r"^lost: (\d+)$", info, re.M).group(1))
    if lost:
        assert re.search(r"^  lost: 0 in signal handlers, %d for lack of space, 0 module records$" % lost, info,
                         re.M), info
    return events, lost, info


def verify(ctx, data, stdout, limit=256 << 10, made=400002):
    events, lost, info = lost_counts(ctx, data)
    files = [f for f in os.listdir(data) if f.endswith(".fnt")]
    assert len(files) == 1, files
    assert os.path.getsize(os.path.join(data, files[0])) <= limit
    assert events + lost == made and lost > 0, info
    assert 50000 < events < limit // 2, info     # (more than 2 bytes an event)


def run(ctx, name, args, soft, hard, ignore=False, untraced=False, quiet=True):
    """the program with RLIMIT_FSIZE set (and SIGXFSZ ignored) before it, or
    before `fntrace record`, as a shell's ulimit does"""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        if ignore:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    exe = os.path.join(ctx.work, "prog")
    data = os.path.join(ctx.work, name + ".data")
    cmd = [exe] if untraced else [ctx.fntrace, "record"] + ["-q"] * quiet + ["-d", data, "--", exe]
    env = dict(os.environ, FNTRACE_DISABLE="1") if untraced else None    # (the program links the runtime)
    p = subprocess.run(cmd + args, capture_output=True, text=True, timeout=120, preexec_fn=limit, cwd=ctx.work,
                       env=env)
    return p, data


def check(ctx):
    verify(ctx, ctx.data, ctx.record.stdout)
    assert ctx.record.stdout == "done 1, snapshot -1\n", ctx.record.stdout
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
    assert p.stdout == "done 1, snapshot -1\n", p.stdout
    verify(ctx, data, p.stdout)

    # `ulimit -f 512` (soft and hard) before a default record, with SIGXFSZ
    # left alone and ignored: the program's output is its untraced output,
    # the file stays under the limit, recorded + lost = made
    inf = resource.RLIM_INFINITY
    for ignore in (False, True):
        name = "shell-ign" if ignore else "shell"
        want, _ = run(ctx, name, ["shell"], 512 << 10, 512 << 10, ignore, untraced=True)
        assert want.returncode == 0 and want.stdout == "limit 524288/524288, SIGXFSZ %s\ndone 1\n" % (
            "ignored" if ignore else "default"), want
        p, data = run(ctx, name, ["shell"], 512 << 10, 512 << 10, ignore)
        assert (p.returncode, p.stdout, p.stderr) == (0, want.stdout, ""), p
        verify(ctx, data, p.stdout, limit=512 << 10)
    # a limit too small for a single event chunk: all lost, and record says
    # so (it used to ask whether the program was built with instrumentation)
    p, data = run(ctx, "tiny", ["shell"], 24 << 10, 24 << 10, quiet=False)
    assert p.returncode == 0 and p.stdout == "limit 24576/24576, SIGXFSZ default\ndone 1\n", p
    assert p.stderr == "fntrace: wrote '%s': no events, 400002 lost ('fntrace info' says why)\n" % data, p
    # a soft limit the program raises to the hard one (none): all of it
    want, _ = run(ctx, "raise", ["raise"], 256 << 10, inf, untraced=True)
    assert want.returncode == 0 and want.stdout == "limit 262144/unlimited, SIGXFSZ default\ndone 1\n", want
    p, data = run(ctx, "raise", ["raise"], 256 << 10, inf)
    assert (p.returncode, p.stdout, p.stderr) == (0, want.stdout, ""), p
    events, lost, info = lost_counts(ctx, data)
    assert (events, lost) == (400002, 0), info

    # the limit lowered by a program that outlives record, below the ring's
    # slots it then writes into its file itself at exit: before, SIGXFSZ
    # killed it there (its file then shows no clean exit); now they are
    # counted as lost
    data = os.path.join(ctx.work, "late.data")
    pidfile, go = os.path.join(ctx.work, "late.pid"), os.path.join(ctx.work, "late.go")
    ready = os.path.join(ctx.work, "late.ready")
    # the shell (record's child) waits until the program has taken the
    # ring: a program that takes it after record has left maps its file
    # instead, and loses nothing
    subprocess.run([ctx.fntrace, "record", "-q", "-d", data, "--", "/bin/sh", "-c",
                    "'%s' late '%s' '%s' > /dev/null & echo $! > '%s'; while [ ! -e '%s' ]; do sleep 0.01; done"
                    % (os.path.join(ctx.work, "prog"), go, ready, pidfile, ready)],
                   check=True, timeout=120)
    pid = int(open(pidfile).read())
    open(go, "w").close()
    assert wait_gone(pid, 120), "the background program did not end"
    events, lost, info = lost_counts(ctx, data)
    assert lost > 0 and events + lost == 2 * (1 + 2000), info
    prog = info.split("after exec: ")[1]
    assert "\n  ended: exited normally\n" in prog, info

    # a limit below a trace file's header: no file at all, and record says
    # why (it asked whether the program was built with -finstrument-functions)
    p, data = run(ctx, "tiny", ["2000"], 3072, 3072, ignore=True, quiet=False)
    assert "fntrace: no function events were recorded: the file size limit (ulimit -f: 3072 bytes) leaves no " \
           "room for a trace file, whose header alone takes 4096; raise it" in p.stderr.splitlines(), p.stderr
    assert "built with" not in p.stderr, p.stderr
