import os
import shutil
import subprocess


def check(ctx):
    assert ctx.record.stdout == "11\n", ctx.record.stdout
    normal = ctx.counts()
    assert normal["work"] == 3 and normal["qsort"] == 3 and normal["main"] == 1, normal
    built = os.path.dirname(ctx.fntrace)
    rt = os.path.join(ctx.work, "rt", "rt-copy.so")
    os.makedirs(os.path.dirname(rt), exist_ok=True)
    shutil.copy2(os.path.join(built, "libfntrace.so"), rt)
    env = dict(os.environ, FNTRACE_LIBRARY=rt, FNTRACE_LIBCALL="1")

    def build_id(path):
        out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, check=True).stdout
        return [l.split(":")[1].strip() for l in out.splitlines() if "Build ID" in l][0]
    prog_table = build_id(os.path.join(ctx.work, "prog")) + ".sym"
    for name, extra in (("libcall", []), ("patch", ["-P", "*"])):
        d = os.path.join(ctx.work, name + ".data")
        p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d] + extra + ["--", os.path.join(ctx.work, "prog")],
                           capture_output=True, text=True, cwd=ctx.work, env=env, timeout=120)
        assert p.returncode == 0 and p.stdout == "11\n", (name, p.returncode, p.stdout, p.stderr[-2000:])
        got = ctx.counts("-d", d)
        assert not [f for f in got if f.startswith("fnt_") or f.startswith("__fnt")], (name, got)
        assert got == normal, (name, got, normal)
        # -q saves the tables of the instrumented modules only: the program's,
        # not the runtime's under its other name (it defines the hooks)
        assert os.listdir(os.path.join(d, "symtab")) == [prog_table], (name, os.listdir(os.path.join(d, "symtab")))
