"""-P on shared libraries only (one linked, one dlopen'ed), with -A/-R."""
import re


def check(ctx):
    assert ctx.record.stdout == "62 16 2\n", ctx.record.stdout
    got = ctx.counts()
    assert got == {"shape_sum": 1, "shape_area": 4, "plug_run": 1, "plug_step": 4}, got
    info = ctx.run("info", check=True).stdout
    assert re.search(r"-P: 2 functions patched in '.*/libshape.so'", info), info
    assert re.search(r"-P: 2 functions patched in '.*/plugin.so'", info), info
    # the program itself had nothing selected: no line for it
    assert not re.search(r"patched in '.*/prog'", info), info
    # --auto-args on patched library functions: names and values from DWARF
    import os
    d = os.path.join(ctx.work, "auto.data")
    p = ctx.run("record", "-q", "-d", d, "--auto-args", "-P", "shape_area", "--",
                os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0 and p.stdout == "62 16 2\n", (p.returncode, p.stdout, p.stderr)
    lines = [l.split("| ", 1)[1].strip() for l in ctx.run("replay", "-d", d, check=True).stdout.splitlines()[1:]]
    assert lines == ["shape_area(w=1, h=2) = 2;", "shape_area(w=2, h=3) = 6;", "shape_area(w=3, h=4) = 12;",
                     "shape_area(w=6, h=7) = 42;"], lines
