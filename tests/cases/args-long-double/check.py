"""long double values (issue 12): arguments are read from their stack words
(argN, N > 6: the stack words are numbered on from arg7, whatever registers
the other arguments take), return values from st(0), copied without
disturbing the x87 stack (the program checks its results and FE_INVALID and
exits 1 if anything changed; a retval/f80 where st(0) is empty shows ?)."""
import os, subprocess


def check(ctx):
    assert ctx.record.stdout == "-1e+600 8 28.5 42 0\n", ctx.record.stdout
    d = os.path.join(ctx.work, "explicit.data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "-A", "ld_mix@arg7/f80,arg9/f80,fparg1,arg1",
                        "-R", "ld_mix@retval/f80", "-A", "seven@arg7,arg9/f80", "--",
                        os.path.join(ctx.work, "prog")], capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert "ld_mix(0.1, -1e+600, 0.25, 2) = -1e+600;" in out, out
    # seven's seventh int is the first stack word; its long double, 16-byte
    # aligned, the third and fourth
    assert "seven(7, 0.5);" in out, out
    p = ctx.run("record", "-A", "ld_mul@arg1/f80", "--", os.path.join(ctx.work, "prog"))
    assert p.returncode == 2 and "item 1 of 'arg1/f80' is not valid" in p.stderr, p.stderr
