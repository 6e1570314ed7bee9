import os, re, shutil, subprocess

# gdb -batch stops the traced program in probe and prints the backtrace.
# With scripts/fntrace-gdb.py (auto-loaded from libfntrace.so's
# .debug_gdb_scripts once the library is in gdb's auto-load safe-path, or
# sourced by hand), every traced caller is named, each behind a
# fnt_traced_return frame; without it the walk ends at the first one.  The
# program then runs on to its normal end.

REAL = ["probe", "leaf", "mid", "top", "main"]
TRAMP = "fnt_traced_return"     # (probe's own return is swapped too when gdb stops past its entry hook)
FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) \(", re.M)


def gdb(ctx, exe, *how):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.so")
    d = os.path.join(ctx.work, "gdb.data")
    shutil.rmtree(d, ignore_errors=True)
    cmd = ["gdb", "-batch", "-nx", *how, "-ex", "set startup-with-shell off",
           "-ex", "set environment LD_PRELOAD=" + lib, "-ex", "set environment FNTRACE_DIR=" + d,
           "-ex", "set environment FNTRACE_LIBCALL=0",
           "-ex", "break probe", "-ex", "run", "-ex", "bt", "-ex", "continue", exe]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert "exited normally" in p.stdout and "\n9\n" in p.stdout, (how, p.stdout, p.stderr)
    return FRAME.findall(p.stdout), p


def check(ctx):
    lib = os.path.join(os.path.dirname(ctx.fntrace), "libfntrace.so")
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "..", "scripts",
                          "fntrace-gdb.py")
    for prog in ("prog", "prog-patchable"):
        exe = os.path.join(ctx.work, prog)
        for how in (["-iex", "add-auto-load-safe-path " + lib],
                    ["-iex", "set auto-load python-scripts off", "-ex", "source " + script]):
            got, p = gdb(ctx, exe, *how)
            assert [f for f in got if f != TRAMP] == REAL and got[-1] == "main", (prog, how, got, p.stdout)
            assert got.count(TRAMP) >= 3 and TRAMP + TRAMP not in "".join(got), (prog, how, got)
        got, p = gdb(ctx, exe, "-iex", "set auto-load python-scripts off")
        assert got[-1] == TRAMP and "mid" not in got, (prog, "without the script", got)
    # a core file: the shadow stack is read from the core's memory, the
    # thread found through the core's fs_base
    exe = os.path.join(ctx.work, "prog")
    core = os.path.join(ctx.work, "prog.core")
    d = os.path.join(ctx.work, "gdb.data")
    subprocess.run(["gdb", "-batch", "-nx", "-ex", "set startup-with-shell off",
                    "-ex", "set environment LD_PRELOAD=" + lib, "-ex", "set environment FNTRACE_DIR=" + d,
                    "-ex", "break probe", "-ex", "run", "-ex", "gcore " + core, "-ex", "kill", exe],
                   capture_output=True, text=True, cwd=ctx.work, timeout=120)
    p = subprocess.run(["gdb", "-batch", "-nx", "-iex", "add-auto-load-safe-path " + lib,
                        "-ex", "set solib-search-path " + os.path.dirname(lib), "-ex", "bt", exe, core],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    got = FRAME.findall(p.stdout[p.stdout.rfind("\n#0 "):])     # (loading the core prints frame #0 first)
    assert [f for f in got if f != TRAMP] == REAL, ("core", got, p.stdout, p.stderr)
