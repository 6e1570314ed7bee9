import os, subprocess


def check(ctx):
    # record-time filters across longjmp: the depth at setjmp comes back with
    # the jump, so a -F subtree left by a jump is closed (here setjmp runs
    # before the thread's first recorded call)
    d = os.path.join(ctx.work, "rec-F")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "-F", "deep", "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    out = ctx.run("replay", "-d", d, check=True).stdout
    lines = [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]
    assert lines == ["deep() {", "  deep() {", "    deep() {", "      deep() {",
                     "      } /* deep (no return: unwound) */", "    } /* deep (no return: unwound) */",
                     "  } /* deep (no return: unwound) */", "} /* deep (no return: unwound) */"], out
    # -N of the jumping function: the calls after the jump are recorded
    d = os.path.join(ctx.work, "rec-N")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "-N", "*deep", "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 0, p.stderr
    out = ctx.run("replay", "-d", d, check=True).stdout
    lines = [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]
    assert lines == ["main() {", "  other();", "  other();", "} /* main */"], out
