"""record --trace=off -T f@trace_on with -D, -F, -N, -H and -C writes what
replay -T f@trace_on with the same filters shows of a full recording
(doc/triggers.md).  Before, record counted the levels entered while
recording was off against -D (f, 4 levels deep, was left out by -D 2), and
a -F or -N function entered while it was off did not open its subtree (-F b
recorded nothing, -N b everything after f's trace_on).  Not compared: the
returns of main, a and b, which record writes ("entered while recording was
off") and replay -T trace_on does not show.  -finstrument-functions and
-pg -mfentry builds."""
import os
import subprocess

SETS = [["-D", "1"], ["-D", "2"], ["-D", "3"], ["-F", "b"], ["-F", "b", "-D", "2"], ["-F", "a", "-D", "1"],
        ["-N", "b"], ["-N", "a"], ["-N", "g", "-D", "2"], ["-H", "b", "-D", "2"], ["-H", "f", "-D", "1"],
        ["-C", "g", "-D", "2"], ["-F", "b", "-N", "g"]]
OFF = "(entered while recording was off)"


def lines(ctx, *args):
    p = ctx.run("replay", "--no-pager", "--fields", "none", *args)
    if p.returncode and "no function events" in p.stderr:
        return []
    assert p.returncode == 0, (args, p.stderr)
    return [l for l in p.stdout.splitlines() if not l.startswith("#") and OFF not in l]


def check(ctx):
    for prog in ("prog", "prog-fentry"):
        exe = os.path.join(ctx.builddir if prog == "prog" else ctx.work, prog)
        full = os.path.join(ctx.work, "full-%s.data" % prog)
        subprocess.run([ctx.fntrace, "record", "-q", "-d", full, "--", exe], check=True, capture_output=True)
        for i, opts in enumerate(SETS):
            d = os.path.join(ctx.work, "%s-%d.data" % (prog, i))
            p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--trace=off", "-T", "f@trace_on", *opts,
                                "--", exe], capture_output=True, text=True)
            assert p.returncode == 0 or "no function events" in p.stderr, (opts, p.stderr)
            want = lines(ctx, "-d", full, "-T", "f@trace_on", *opts)
            got = lines(ctx, "-d", d) if p.returncode == 0 else []
            assert got == want, (prog, opts, got, want)
        # what two of them show
        assert lines(ctx, "-d", full, "-T", "f@trace_on", "-D", "2") == [
            "| f() {", "|   g();", "|   leaf();", "| } /* f */", "| g() {", "|   leaf();", "|   leaf();", "| } /* g */",
            "| leaf();", "| g() {", "|   leaf();", "|   leaf();", "| } /* g */", "| f() {", "|   g();", "|   leaf();",
            "| } /* f */"]
        assert lines(ctx, "-d", full, "-T", "f@trace_on", "-F", "b") == [
            "| f() {", "|   g() {", "|     leaf();", "|     leaf();", "|   } /* g */", "|   leaf();", "| } /* f */",
            "| g() {", "|   leaf();", "|   leaf();", "| } /* g */"]
