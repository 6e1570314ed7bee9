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
