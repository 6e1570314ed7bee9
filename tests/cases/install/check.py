"""make install / uninstall into a temporary prefix, as a user would: the
runtime is a real shared library (SONAME libfntrace.so.0 and its links)
beside libfntrace.a, fntrace.pc makes `pkg-config --cflags --libs fntrace`
work, the installed fntrace finds the installed runtime, the docs, man
pages and completion are installed, DESTDIR stages, and uninstall removes
every file it put there."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def make(ctx, *args):
    build = os.path.relpath(os.path.dirname(ctx.fntrace), ROOT)
    p = subprocess.run(["make", "-s", "-C", ROOT, "O=" + build] + list(args), capture_output=True, text=True)
    assert p.returncode == 0, "make %s: %s%s" % (" ".join(args), p.stdout, p.stderr)


def files_under(top):
    out = set()
    for d, dirs, files in os.walk(top):
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), top))
    return out


def check(ctx):
    prefix = os.path.join(ctx.work, "prefix")
    make(ctx, "install", "PREFIX=" + prefix)
    lib = os.path.join(prefix, "lib")
    # the shared library and its links, the archive, the pc file
    assert os.readlink(os.path.join(lib, "libfntrace.so")) == "libfntrace.so.0"
    assert os.readlink(os.path.join(lib, "libfntrace.so.0")) == "libfntrace.so.0.1.0"
    dyn = subprocess.run(["readelf", "-d", os.path.join(lib, "libfntrace.so.0.1.0")], capture_output=True,
                         text=True).stdout
    assert "Library soname: [libfntrace.so.0]" in dyn, dyn
    assert os.path.isfile(os.path.join(lib, "libfntrace.a"))
    for f in ("bin/fntrace", "include/fntrace.h", "share/man/man1/fntrace.1",
              "share/man/man1/fntrace-record.1", "share/man/man1/fntrace-replay.1",
              "share/doc/fntrace/format.md", "share/doc/fntrace/README.md",
              "share/bash-completion/completions/fntrace"):
        assert os.path.isfile(os.path.join(prefix, f)), f + " not installed"
    installed = files_under(prefix)

    # build through pkg-config only, then record with the installed fntrace
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"))
    env.pop("LD_PRELOAD", None)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fntrace"], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
    assert "-lfntrace" in flags and "-L" + lib in flags and "-I" + os.path.join(prefix, "include") in flags, flags
    exe = os.path.join(ctx.work, "linked")
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.c")
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-o", exe, src] + flags +
                   ["-Wl,-rpath," + lib], check=True, env=env)
    needed = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
    assert "Shared library: [libfntrace.so.0]" in needed, needed
    data = os.path.join(ctx.work, "inst.data")
    p = subprocess.run([os.path.join(prefix, "bin", "fntrace"), "record", "-d", data, "--", exe],
                       capture_output=True, text=True, env=env, cwd=ctx.work)
    assert p.returncode == 0 and "sum 6" in p.stdout, (p.returncode, p.stdout, p.stderr)
    p = subprocess.run([os.path.join(prefix, "bin", "fntrace"), "replay", "-d", data],
                       capture_output=True, text=True, env=env, check=True)
    assert p.stdout.count("step() {") == 3 and p.stdout.count("inner-scope();") == 3, p.stdout
    assert "done" in p.stdout, p.stdout
    # one runtime in the process: the preloaded and the linked one are the same object
    info = subprocess.run([os.path.join(prefix, "bin", "fntrace"), "info", "-d", data],
                          capture_output=True, text=True, env=env, check=True).stdout
    assert info.count("libfntrace.so") == 1, info

    # DESTDIR stages the same files under another root
    stage = os.path.join(ctx.work, "stage")
    make(ctx, "install", "PREFIX=" + prefix, "DESTDIR=" + stage)
    assert files_under(stage + prefix) == installed, files_under(stage + prefix) ^ installed

    # uninstall removes exactly what install put there
    make(ctx, "uninstall", "PREFIX=" + prefix)
    assert files_under(prefix) == set(), files_under(prefix)
    make(ctx, "uninstall", "PREFIX=" + prefix, "DESTDIR=" + stage)
    assert files_under(stage) == set(), files_under(stage)
