"""A program linked with libfntrace.a records itself under `fntrace record`.
Statically linked, nothing can be preloaded into it, and record says
nothing of it (before, it warned that the runtime could not be preloaded
and told to link with -lfntrace, which it was).  Dynamically linked, the shared
runtime, still preloaded for the programs it execs, stands aside in it, and
record says so (before, the two runtimes ran side by side, and the shared
one traced the archive's own library calls: thousands of getenv, open,
mmap calls in the replay).  Either way the program it execs is traced."""
import os, subprocess


def counts_of(ctx, d):
    counts = {}
    p = ctx.run("report", "-d", d, "--format", "csv", check=True)
    for line in p.stdout.splitlines()[1:]:
        name = line.split(",")[0]       # (one row per module: the parent's main and the child's)
        counts[name] = counts.get(name, 0) + int(line.split(",")[1])
    return counts


def check(ctx):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.a")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    src = os.path.join(os.path.dirname(__file__), "prog.c")
    child_src = os.path.join(ctx.work, "child.c")
    with open(child_src, "w") as f:
        f.write("__attribute__((noinline)) int kid(int x) { return x + 1; }\n"
                "int main(void) { return kid(1) == 2 ? 0 : 1; }\n")
    child = os.path.join(ctx.work, "child")
    subprocess.run([cc, "-g", "-finstrument-functions", "-o", child, child_src], check=True, capture_output=True)
    for how in (["-static"], []):
        exe = os.path.join(ctx.work, "prog-static" if how else "prog-dynamic")
        subprocess.run([cc, *how, "-" + ctx.opt, "-g", "-finstrument-functions", "-o", exe, src, lib, "-lpthread",
                        "-ldl"], check=True, capture_output=True)
        d = os.path.join(ctx.work, "rec-static.data" if how else "rec-dynamic.data")
        p = ctx.run("record", "-d", d, "--", exe, child, data=False)
        assert p.returncode == 0, p
        if how:
            assert "warning" not in p.stderr, p.stderr
        else:
            assert "is linked with libfntrace.a: it records itself" in p.stderr, p.stderr
        # the parent's calls, and the child's main and kid (main: both)
        assert counts_of(ctx, d) == {"main": 2, "work": 5, "deep": 3, "kid": 1}, (how, counts_of(ctx, d))
        # with a record-time depth limit: the archive has no setjmp
        # wrappers, so the frames the longjmp left close when main returns
        # (main's exit is checked against the calls open)
        d2 = d + "-D2"
        p = ctx.run("record", "-q", "-D", "2", "-d", d2, "--", exe, child, data=False, check=True)
        text = ctx.run("replay", "--no-pager", "--fields", "none", "-d", d2, check=True).stdout
        assert "trace ended" not in text and counts_of(ctx, d2)["deep"] == 1, (how, text)
    # and run alone, with FNTRACE_DIR set by hand, as before
    env = dict(os.environ, FNTRACE_DIR=os.path.join(ctx.work, "static.data"))
    env.pop("LD_PRELOAD", None)
    assert subprocess.run([os.path.join(ctx.work, "prog-static")], env=env).returncode == 0
    assert counts_of(ctx, os.path.join(ctx.work, "static.data")) == {"main": 1, "work": 5, "deep": 3}
