import os, shutil, stat, subprocess
import perfcheck as P

# perf-inject's output holds what perf.data holds (with --call-graph dwarf,
# perf's raw copies of the user stack: whatever the program had there) and
# the trace's calls.  perf record makes perf.data 0600 and fntrace's traces
# are 0600; the output was made 0666 minus the umask, 0644 under umask 022,
# for anyone to read.  A new output now gets the input's mode or 0600,
# whichever is stricter, minus the umask; a file it replaces keeps its mode
# (whoever made it so chose it), as export -o does.


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def check(ctx):
    perf, why = P.usable(ctx)
    if why:
        raise Skip(why)
    work = ctx.work
    d = os.path.join(work, "t.data")
    data = os.path.join(work, "perf.data")
    p = P.record(ctx, perf, data, d, os.path.join(work, "prog"), how=("--call-graph", "dwarf"), args=("--callsite",))
    assert p.returncode == 0 and "done" in p.stdout, (p.stdout, p.stderr)
    assert mode(data) == 0o600, oct(mode(data))

    def inject(inp, out, umask="022"):
        p = subprocess.run(["sh", "-c", 'umask %s; exec "$@"' % umask, "sh", ctx.fntrace, "perf-inject", "-d", d,
                            "-i", inp, "-o", out], capture_output=True, text=True, cwd=work, timeout=120)
        assert p.returncode == 0 and "frames rewritten" in p.stderr, p.stderr
        assert stat.S_ISREG(os.lstat(out).st_mode)
        return mode(out)

    # the default name too (perf.data.real)
    p = subprocess.run(["sh", "-c", 'umask 022; exec "$@"', "sh", ctx.fntrace, "perf-inject", "-d", d],
                       capture_output=True, text=True, cwd=work, timeout=120)
    assert p.returncode == 0, p.stderr
    assert mode(data + ".real") == 0o600, ("perf.data 0600 under umask 022", oct(mode(data + ".real")))
    assert inject(data, os.path.join(work, "a.real"), "000") == 0o600
    for in_mode, want in ((0o644, 0o600), (0o640, 0o600), (0o400, 0o400), (0o440, 0o400)):
        inp = os.path.join(work, "in-%o.data" % in_mode)
        shutil.copyfile(data, inp)
        os.chmod(inp, in_mode)
        got = inject(inp, os.path.join(work, "out-%o.real" % in_mode))
        assert got == want, ("input %o" % in_mode, oct(got))
    # a file replaced keeps its mode
    kept = os.path.join(work, "kept.real")
    open(kept, "w").write("old\n")
    os.chmod(kept, 0o640)
    assert inject(data, kept) == 0o640
    assert os.path.getsize(kept) == os.path.getsize(data)
    assert not [n for n in os.listdir(work) if ".tmp." in n], os.listdir(work)
    # the traced program is not replaced by -o (it is the code the return
    # addresses are looked up in)
    with open(os.path.join(work, "prog"), "rb") as f:
        prog = f.read()
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", d, "-i", data, "-o", "prog"], capture_output=True, text=True,
                       cwd=work, timeout=120)
    assert p.returncode == 1 and p.stderr == ("fntrace: option '-o' names 'prog', a module of the trace ('%s'): write "
                                              "the output elsewhere\n" % os.path.join(work, "prog")), p.stderr
    with open(os.path.join(work, "prog"), "rb") as f:
        assert f.read() == prog
    # -o -: standard output, said as such (it said "wrote '-'")
    with open(os.path.join(work, "stdout.real"), "wb") as f:
        p = subprocess.run([ctx.fntrace, "perf-inject", "-d", d, "-i", data, "-o", "-"], stdout=f,
                           stderr=subprocess.PIPE, text=True, cwd=work, timeout=120)
    assert p.returncode == 0 and p.stderr.startswith("fntrace: perf-inject: wrote the output to standard output: "), \
        p.stderr
    assert os.path.getsize(os.path.join(work, "stdout.real")) == os.path.getsize(data)
