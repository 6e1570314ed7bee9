"""The runtime, started by a .preinit_array function before libc set up
environ, still records into -d's directory with -F's filter (golden:
only the three *_work calls); nothing is written to ./fntrace.data.
Without filters, the whole early code is there, in order.  And without
/proc (as root: a mount namespace with an empty tmpfs over it), where the
settings come from the process's first stack and its path from AT_EXECFN:
the same three calls, named, in -d's directory."""
import os
import re
import subprocess


def check(ctx):
    assert ctx.record.stdout == "6 42\n", ctx.record.stdout
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data")), os.listdir(ctx.work)
    d = ctx.data + ".all"
    p = ctx.run("record", "-d", d, "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data")), os.listdir(ctx.work)
    out = ctx.run("replay", "-d", d, check=True).stdout
    calls = re.findall(r"\| +(\w+)\(\)", out)
    assert calls == ["preinit", "early_work", "lib_init", "lib_early_work", "main", "late_work", "lib_value"], out
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "\nfilters:" not in info, info

    # no /proc: nothing to read in /proc/self/environ, exe or cmdline
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        print("note: not root, or no mount namespaces here: the start-up without /proc is not tested")
        return
    d = ctx.data + ".noproc"
    p = ctx.run("record", "-d", d, "-F", "*_work", "--", "unshare", "-m", "sh", "-c",
                "mount -t tmpfs none /proc && exec ./prog", data=False, cwd=ctx.work)
    assert p.returncode == 0 and p.stdout == "6 42\n", (p.returncode, p.stdout, p.stderr)
    assert not os.path.exists(os.path.join(ctx.work, "fntrace.data")), os.listdir(ctx.work)
    out = ctx.run("replay", "-d", d, check=True).stdout
    assert re.findall(r"\| +(\w+)\(\)", out) == ["early_work", "lib_early_work", "late_work"], out
    info = ctx.run("info", "-d", d, check=True).stdout
    assert "after exec: %s\n" % os.path.join(ctx.work, "prog") in info and "\n  argv: ./prog\n" in info, info
