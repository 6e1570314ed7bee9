"""Vector arguments and return values (ymm, and zmm where the processor
has AVX-512F) through the general path of each trampoline: -pg -mfentry,
patchable entries (--patch) and -P on a program built without hooks.  A
string value (strnlen) and a thread's first call (getenv, memcpy) make
that path call glibc's string functions, whose AVX2 versions end in
vzeroupper: the upper lanes came back zeroed and the program computed
wrong sums.  On a machine with AVX-512, glibc picks its EVEX versions,
which do not clear them; GLIBC_TUNABLES makes it pick the AVX2 ones, as on
a machine without.  The program's output traced must be its output
untraced, and the calls must all be in the trace with their strings."""
import os
import re
import subprocess

AVX2_GLIBC = "glibc.cpu.hwcaps=-AVX512F,-AVX512VL"
TAG = '"a tag longer than sixty-four bytes, so that strnlen takes its ve"...'


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def check(ctx):
    flags = cpu_flags()
    if "avx2" not in flags:
        raise Skip("the processor has no AVX2")
    w = ctx.work
    plain = subprocess.run([os.path.join(w, "prog")], capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0 and plain.stdout.count(" 0 wrong") == (3 if "avx512f" in flags else 2), plain
    runs = [("prog", ["-A", "shift*@arg1/s", "-A", "twice@arg1/s"]),
            ("prog", ["--libcall", "-N", "never_called_anywhere", "-A", "shift*@arg1/s"]),
            ("prog-patch", ["--patch", "*", "-A", "shift*@arg1/s", "-A", "twice@arg1/s"]),
            ("prog-plain", ["-P", "shift*", "-P", "twice", "-P", "lanes", "-A", "shift*@arg1/s",
                            "-A", "twice@arg1/s"])]
    for glibc in (None, AVX2_GLIBC):
        env = dict(os.environ)
        if glibc:
            env["GLIBC_TUNABLES"] = glibc
        for i, (prog, opts) in enumerate(runs):
            d = os.path.join(w, "rec-%d%s" % (i, "-avx2" if glibc else ""))
            p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, *opts, "--", os.path.join(w, prog)],
                               capture_output=True, text=True, cwd=w, timeout=120, env=env)
            assert p.returncode == 0 and p.stdout == plain.stdout, (prog, opts, glibc, p.stdout, p.stderr)
            out = ctx.run("replay", "-d", d, check=True).stdout
            # 1000 rounds in main, 1000 in the thread
            assert len(re.findall(r"\| +shift\(%s\)" % re.escape(TAG), out)) == 2000, (prog, opts)
            if "-N" not in opts:
                assert len(re.findall(r"\| +twice\(%s\)" % re.escape(TAG), out)) == 2000, (prog, opts)
            if "avx512f" in flags and prog != "prog-plain":
                assert len(re.findall(r"\| +shift512\(%s\)" % re.escape(TAG), out)) == 1000, (prog, opts)
