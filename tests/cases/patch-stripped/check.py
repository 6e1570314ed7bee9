"""-P '*' on a stripped executable: it has no symbol table, so -P finds no
function in it.  record says so plainly, with what to do, says that it
patched none (it printed nothing about -P before, then hinted at the -P that
was given), and the program's library calls are traced as usual.  The same
build unstripped (the harness's recording) is patched."""
import os
import re
import subprocess


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    assert ctx.record.stdout == "1 2 3\n", ctx.record.stdout
    assert ctx.counts() == {"main": 1, "sort3": 1, "cmp": 3, "qsort": 1, "printf": 1}, ctx.counts()
    assert "symbol table" not in ctx.record.stderr, ctx.record.stderr

    stripped = os.path.join(ctx.work, "prog-stripped")
    subprocess.run(["strip", "-o", stripped, prog], check=True)
    warning = ("fntrace: warning: -P/--patch: '%s' has no symbol table (it was stripped), so -P finds no "
               "function in it to patch: record a build that is not stripped (its library calls are traced "
               "all the same)" % stripped)
    d = os.path.join(ctx.work, "stripped.data")
    p = ctx.run("record", "-d", d, "-P", "*", "--", stripped, data=False)
    assert p.returncode == 0 and p.stdout == "1 2 3\n", (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.splitlines()
    assert lines[:2] == [warning, "fntrace: -P patched 0 functions, skipped 0"], lines
    assert len(lines) == 3 and lines[2].startswith("fntrace: wrote '%s': 4 events" % d), lines
    assert ctx.counts("-d", d) == {"qsort": 1, "printf": 1}, ctx.counts("-d", d)
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "patched (-P): 0 functions, 0 skipped\n" in info, info
    assert "  -P: 0 functions patched in '%s'\n" % stripped in info, info

    # nothing else to record: the last line says why, and does not suggest the -P that was given
    d = os.path.join(ctx.work, "nolib.data")
    p = ctx.run("record", "-d", d, "--no-libcall", "-P", "*", "--", stripped, data=False)
    assert p.returncode == 0 and p.stdout == "1 2 3\n", (p.returncode, p.stdout, p.stderr)
    assert p.stderr.splitlines() == [
        warning, "fntrace: -P patched 0 functions, skipped 0",
        "fntrace: no function events were recorded: '%s' has no symbol table for -P to find functions in "
        "(see above)" % stripped], p.stderr
