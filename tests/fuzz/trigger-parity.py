#!/usr/bin/env python3
"""Record-time filters and triggers against read time, on random programs.

For each random C program (5-10 functions calling each other in loops,
recursion bounded) it records once in full, then for random sets of -C,
-T FUNC@trace_on, -T FUNC@trace_off, -T FUNC@depth=N and -D N it checks
that `fntrace record --trace=off SET` writes what `fntrace replay SET`
shows of the full recording (doc/triggers.md, "Record time against read
time").  Every set has a -C, so record-time filters are always on:
recordings without filters (whose differences doc/triggers.md lists
under "These remain") are not tried.  The returns of calls entered while
recording was off, which a recording without filters writes and replay
does not show, are not compared.  Not part of `make check` (minutes of runs); a tool for changes
to runtime/filter.c, runtime/trigger.c and tool/calls.c.

  python3 tests/fuzz/trigger-parity.py [--build build] [--programs 60]
      [--sets 15] [--seed 8] [--kind fin|fentry] [--out DIR]

Each disagreement is kept in DIR/<kind>-<seed>-<program>-<set>/ (prog.c,
opts, got: record's, want: replay's); the last line counts them.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

OFF = "(entered while recording was off)"


def program(rng, nf):
    names = ["f%d" % i for i in range(nf)]
    out = ["static volatile int sink; static int budget = 400;"]
    out += ["__attribute__((noinline)) void %s(int d);" % n for n in names]
    for i, n in enumerate(names):
        body = ["  if (--budget < 0) return;", "  sink++;"]
        for _ in range(rng.randint(0, 3)):
            j = rng.randrange(nf)
            call = "%s(d + 1);" % names[j]
            if j <= i:                      # a call back up: bounded by the depth
                call = "if (d < %d) %s" % (rng.randint(2, 5), call)
            k = rng.choice([1, 1, 1, 2, 3])
            body.append("  for (int i = 0; i < %d; i++) %s" % (k, call) if k > 1 else "  " + call)
        out.append("__attribute__((noinline)) void %s(int d) {\n%s\n}" % (n, "\n".join(body)))
    calls = " ".join("%s(0);" % names[rng.randrange(nf)] for _ in range(rng.randint(2, 5)))
    out.append("int main(void) { %s return 0; }" % calls)
    return "\n".join(out) + "\n", names


def option_set(rng, names):
    pick = lambda: rng.choice(names + ["main"])
    opts = []
    for _ in range(rng.choice([1, 1, 2])):
        opts += ["-C", rng.choice(names)]
    for action in ("trace_on", "trace_off"):
        for _ in range(rng.choice([1, 1, 2])):
            opts += ["-T", pick() + "@" + action]
    if rng.random() < 0.5:
        opts += ["-T", pick() + "@depth=%d" % rng.randint(1, 4)]
    if rng.random() < 0.5:
        opts += ["-D", str(rng.randint(1, 5))]
    return opts


class Fntrace:
    def __init__(self, exe):
        self.exe = exe

    def run(self, *args):
        return subprocess.run([self.exe, *args], capture_output=True, text=True)

    def record(self, d, prog, opts):
        """True: recorded; False: nothing chosen; raises on any other failure"""
        shutil.rmtree(d, ignore_errors=True)
        p = self.run("record", "-q", "-d", d, *opts, "--", prog)
        if p.returncode and "no function events" not in p.stderr:
            raise RuntimeError("record %s: %s" % (" ".join(opts), p.stderr.strip()))
        return p.returncode == 0

    def lines(self, *args):
        p = self.run("replay", "--no-pager", "--fields", "none", *args)
        if p.returncode and "no function events" in p.stderr:
            return []
        if p.returncode:
            return ["ERROR " + p.stderr.strip()]
        return [l for l in p.stdout.splitlines() if not l.startswith("#") and OFF not in l]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="directory of fntrace and libfntrace.so (default build/)")
    ap.add_argument("--programs", type=int, default=60)
    ap.add_argument("--sets", type=int, default=15, help="option sets per program")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--kind", choices=("fin", "fentry"), default="fin",
                    help="fin: gcc -finstrument-functions; fentry: gcc -pg -mfentry")
    ap.add_argument("--out", default="trigger-parity.out", help="where disagreements are kept")
    a = ap.parse_args()
    fnt = Fntrace(os.path.abspath(os.path.join(a.build, "fntrace")))
    if not os.access(fnt.exe, os.X_OK):
        sys.exit("trigger-parity: no fntrace in '%s': build it first (make), or give --build" % a.build)
    rng = random.Random(a.seed)
    flags = ["-finstrument-functions"] if a.kind == "fin" else ["-pg", "-mfentry"]
    tried = differ = 0
    with tempfile.TemporaryDirectory(prefix="trigger-parity.") as work:
        prog, full, part = (os.path.join(work, n) for n in ("prog", "full", "part"))
        for pi in range(a.programs):
            src, names = program(rng, rng.randint(5, 10))
            with open(prog + ".c", "w") as fh:
                fh.write(src)
            subprocess.run(["gcc", "-O0", "-g", *flags, "-o", prog, prog + ".c"], check=True)
            fnt.record(full, prog, [])
            for si in range(a.sets):
                opts = option_set(rng, names)
                tried += 1
                got = fnt.lines("-d", part) if fnt.record(part, prog, ["--trace=off", *opts]) else []
                want = fnt.lines("-d", full, *opts)
                if got == want:
                    continue
                differ += 1
                d = os.path.join(a.out, "%s-%d-%d-%d" % (a.kind, a.seed, pi, si))
                os.makedirs(d, exist_ok=True)
                for name, text in (("prog.c", src), ("opts", " ".join(opts) + "\n"),
                                   ("got", "\n".join(got) + "\n"), ("want", "\n".join(want) + "\n")):
                    with open(os.path.join(d, name), "w") as fh:
                        fh.write(text)
                print("differ: %s" % d, flush=True)
    print("%d option sets on %d programs (%s, seed %d): %d differ" % (tried, a.programs, a.kind, a.seed, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
