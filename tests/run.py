#!/usr/bin/env python3
"""fntrace end-to-end tests.

Each tests/cases/<name>/ holds a program (prog.c or prog.cc, maybe more
sources; case.json "prog_from": "<other case>" builds that case's prog.c
instead, for cases that check other things of one program), a case.json saying how to build and run it, golden files under
expected/, and optionally check.py with a check(ctx) function for assertions
that a golden file cannot express (exact file:line values, totals, errors).
A check.py that needs a tool this machine cannot run (perf) raises
Skip("why"): the case is reported as skipped, and the summary counts it.

Every case is built with gcc and clang at -O0 and -O2 (unless case.json
narrows it), recorded with the real `fntrace record`, and read back with the
real CLI.  Replay output is compared after normalising what legitimately
varies between runs: durations become "D", thread ids T1, T2... in order of
first appearance.  The same golden serves all four builds; a file named
expected/<golden>.gcc or .clang overrides it for one compiler.

gcc -O2 gets -fno-ipa-sra -fno-ipa-cp -fno-ipa-icf so that its clones
(foo.isra.0) and merged functions do not rename what the program calls; the
sources mark their functions noinline.  Nothing else differs between builds.

Library calls are traced by default for users, but most goldens predate
them: the harness records with FNTRACE_LIBCALL=0 (record's default becomes
--no-libcall, for check.py's own runs too) unless case.json says
"libcall": true.

usage: tests/run.py [--build DIR] [--update] [-j N] [name-substring...]
"""
import argparse
import concurrent.futures
import csv
import difflib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "cases")
BUILDS = ["gcc-O0", "gcc-O2", "clang-O0", "clang-O2"]
LIBDIR = [""]   # directory of the fntrace binary and libfntrace.so, set by main()

DUR = re.compile(r"^(?:(\s*\d+\.\d{3} (?:us|ms| s))|( {11})) \[\s*(\d+)\] \| (.*)$")


def normalise_replay(text, per_thread=False):
    """Durations -> D, tids -> T1.. in order of appearance.  per_thread:
    split by thread, then sort the thread blocks (interleaving between
    threads is not deterministic)."""
    tids = {}
    out = []
    blocks = {}
    for line in text.splitlines():
        m = DUR.match(line)
        if not m:
            if not line.startswith("# DURATION"):
                out.append(line)
            continue
        dur = "D" if m.group(1) else " "
        tid = m.group(3)
        if tid not in tids:
            tids[tid] = "T%d" % (len(tids) + 1)
        row = "%s [%s] | %s" % (dur, tids[tid], m.group(4))
        if per_thread:
            blocks.setdefault(tid, []).append("%s | %s" % (dur, m.group(4)))
        else:
            out.append(row)
    if per_thread:
        # whether a call prints as a leaf line or as an open/close pair
        # depends on how the threads interleave: fold pairs into leaves
        for tid, b in blocks.items():
            folded = []
            for row in b:
                m = re.match(r"^D \| (\s*)\} /\* (.*) \*/$", row)
                if m and folded and folded[-1] == "  | %s%s() {" % (m.group(1), m.group(2)):
                    folded[-1] = "D | %s%s();" % (m.group(1), m.group(2))
                else:
                    folded.append(row)
            blocks[tid] = folded
        parts = sorted("\n".join(b) for b in blocks.values())
        return "\n=== thread ===\n".join(parts) + "\n" + "\n".join(out)
    return "\n".join(out) + "\n"


class Skip(Exception):
    """Raised by a case's check.py when this machine lacks what the case
    needs (a tool that cannot run here): the case is counted as skipped,
    with the reason, rather than passed or failed."""


class Ctx:
    """What a case's check.py gets: the build, paths, and helpers to run
    the CLI on the recorded trace."""

    def __init__(self, case, build, builddir, work, fntrace, record_result):
        self.case = case
        self.build = build
        self.compiler = build.split("-")[0]
        self.opt = build.split("-")[1]
        self.builddir = builddir
        self.work = work
        self.fntrace = fntrace
        self.data = os.path.join(work, "trace.data")
        self.record = record_result
        self.libcall = False

    def run(self, *args, data=True, check=False, env=None, cwd=None):
        cmd = [self.fntrace] + list(args)
        if self.libcall:
            env = dict(env if env is not None else os.environ, FNTRACE_LIBCALL="1")
        if data and args and args[0] in ("replay", "report", "info", "graph", "export", "stacks") and "-d" not in args:
            cmd += ["-d", self.data]
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=cwd or self.work, timeout=120,
                           env=env)
        # record dies of the signal its program died of (and says so)
        passed_on = (args and args[0] == "record" and p.returncode < 0 and
                     "was killed by signal %d " % -p.returncode in p.stderr)
        if (p.returncode >= 128 or p.returncode < 0) and not passed_on:
            raise AssertionError("fntrace crashed (status %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
        if check and p.returncode != 0:
            raise AssertionError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr))
        return p

    def record_build(self, prog, stdout=None, args=(), record_args=(), env=None):
        """Records another build of the case's program (say "prog-fentry",
        built by case.json's "programs") into work/rec-PROG, after running
        it untraced when stdout is given: it must exit 0 and print exactly
        that, traced and untraced.  The record must exit 0.  Returns the
        trace directory and the record's CompletedProcess.  env: the
        record's environment (default: the harness's)."""
        exe = os.path.join(self.work, prog)
        if stdout is not None:
            plain = subprocess.run([exe, *args], capture_output=True, text=True, cwd=self.work, timeout=60)
            assert plain.returncode == 0 and plain.stdout == stdout, (prog, "untraced", plain)
        d = os.path.join(self.work, "rec-" + prog)
        rec = subprocess.run([self.fntrace, "record", *record_args, "-d", d, "--", exe, *args], capture_output=True,
                             text=True, errors="replace", cwd=self.work, timeout=120, env=env)
        assert rec.returncode == 0, (prog, rec.returncode, rec.stderr)
        assert stdout is None or rec.stdout == stdout, (prog, "traced", rec.stdout)
        return d, rec

    def csv(self, *args):
        p = self.run("report", "--format", "csv", *args, check=True)
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        return rows

    def counts(self, *args):
        out = {}
        for r in self.csv(*args):
            out[r["function"]] = out.get(r["function"], 0) + int(r["calls"])
        return out


# case.json "instrument": true (default) -finstrument-functions, false none,
# "fentry" -pg -mfentry (argument capture), "patchable" -fpatchable-function-entry=5;
# a program of "programs" or a lib of "libs" may add "cflags" after these
# (the last -f... wins)
INSTRUMENT = {"fentry": ["-pg", "-mfentry"], "patchable": ["-fpatchable-function-entry=5"]}


def instrument_flags(flags, how):
    if how is True:
        return flags
    rest = [f for f in flags if f != "-finstrument-functions"]
    return rest + INSTRUMENT[how] if how in INSTRUMENT else rest


def compile_case(case, cfg, build, builddir):
    cc_name, opt = build.split("-")
    srcdir = os.path.join(CASES, case)
    cxx = os.path.exists(os.path.join(srcdir, "prog.cc"))
    compiler = {"gcc": "g++" if cxx else "gcc", "clang": "clang++" if cxx else "clang"}[cc_name]
    flags = ["-" + opt, "-g", "-finstrument-functions", "-Wno-unused-result"]
    if cc_name == "gcc" and opt != "O0":
        flags += ["-fno-ipa-sra", "-fno-ipa-cp", "-fno-ipa-icf"]
    flags += cfg.get("cflags", []) + ["-I" + os.path.join(ROOT, "include")]
    os.makedirs(builddir, exist_ok=True)
    # shared libraries and extra programs first; a lib given as
    # {"sources": [...], "instrument": false} is built without hooks
    for out, spec in cfg.get("libs", {}).items():
        lflags = flags
        if isinstance(spec, dict):
            lflags = instrument_flags(flags, spec.get("instrument", True)) + spec.get("cflags", [])
            spec = spec["sources"]
        cmd = [compiler, *lflags, "-shared", "-fPIC", "-o", os.path.join(builddir, out)]
        cmd += [os.path.join(srcdir, s) for s in spec]
        subprocess.run(cmd, check=True, capture_output=True)
    # in ldflags, "{libdir}": where libfntrace.so (and .a) was built; "{work}": where the libs are
    def ldflags(spec):
        return [f.replace("{libdir}", LIBDIR[0]).replace("{work}", builddir) for f in spec.get("ldflags", [])]
    for out, spec in cfg.get("programs", {}).items():
        pflags = instrument_flags(flags, spec.get("instrument", True)) + spec.get("cflags", [])
        cmd = [compiler, *pflags, "-o", os.path.join(builddir, out)]
        cmd += [os.path.join(srcdir, s) for s in spec["sources"]] + ldflags(spec)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise AssertionError("compile failed: %s\n%s" % (" ".join(cmd), p.stderr))
    main_src = "prog.cc" if cxx else "prog.c"
    if cfg.get("prog_from"):
        main_src = os.path.join(os.pardir, cfg["prog_from"], main_src)
    mflags = instrument_flags(flags, cfg.get("instrument", True))
    cmd = [compiler, *mflags, "-o", os.path.join(builddir, "prog"), os.path.join(srcdir, main_src)]
    cmd += ldflags(cfg)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise AssertionError("compile failed: %s\n%s" % (" ".join(cmd), p.stderr))


def golden_path(case, name, compiler):
    d = os.path.join(CASES, case, "expected")
    specific = os.path.join(d, name + "." + compiler)
    if os.path.exists(specific):
        return specific
    return os.path.join(d, name)


def compare(case, name, compiler, actual, update, first):
    path = golden_path(case, name, compiler)
    if update and first:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(actual)
        return
    if not os.path.exists(path):
        raise AssertionError("missing golden %s (run tests/run.py --update %s)" % (path, case))
    with open(path) as f:
        expected = f.read()
    if expected != actual:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            path, "actual", n=2))
        raise AssertionError("output differs from %s:\n%s" % (os.path.relpath(path, ROOT), diff[:6000]))


def work_dir(args, case, build):
    return os.path.join(ROOT, "tests", "out", os.path.basename(args.build), case, build)


def run_case(case, build, args, fntrace):
    with open(os.path.join(CASES, case, "case.json")) as f:
        cfg = json.load(f)
    if build not in cfg.get("builds", BUILDS):
        return None
    work = work_dir(args, case, build)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    compile_case(case, cfg, build, work)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["FNTRACE_LIBCALL"] = "1" if cfg.get("libcall") else "0"
    # the traced program and the tool must not see the sanitizer runtime's options
    cmd = [fntrace, "record", "-d", os.path.join(work, "trace.data")] + cfg.get("record_args", [])
    cmd += ["--", os.path.join(work, "prog")] + cfg.get("args", [])
    if cfg.get("no_record"):
        rec = None
    else:
        rec = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=work, timeout=120, env=env)
        want = cfg.get("status", 0)
        if rec.returncode != want:
            raise AssertionError("record exited %d, expected %d\nstdout:\n%s\nstderr:\n%s" %
                                 (rec.returncode, want, rec.stdout[-2000:], rec.stderr[-2000:]))
    ctx = Ctx(case, build, work, work, fntrace, rec)
    ctx.libcall = bool(cfg.get("libcall"))
    first = build == cfg.get("builds", BUILDS)[0]
    for chk in cfg.get("checks", []):
        kind = chk["type"]
        if kind == "replay":
            p = ctx.run("replay", *chk.get("args", []))
            if p.returncode != chk.get("status", 0):
                raise AssertionError("replay exited %d: %s" % (p.returncode, p.stderr))
            actual = normalise_replay(p.stdout, chk.get("per_thread", False))
            compare(case, chk["golden"], ctx.compiler, actual, args.update, first)
        elif kind == "counts":
            counts = ctx.counts(*chk.get("args", []))
            actual = "".join("%s %d\n" % (k, counts[k]) for k in sorted(counts))
            compare(case, chk["golden"], ctx.compiler, actual, args.update, first)
        else:
            raise AssertionError("unknown check type %r" % kind)
    check_py = os.path.join(CASES, case, "check.py")
    if os.path.exists(check_py):
        scope = {"__file__": check_py, "Skip": Skip}
        with open(check_py) as f:
            exec(compile(f.read(), check_py, "exec"), scope)
        scope["check"](ctx)
    return True


def forget(args, case, build):
    """A passed case's traces go: the whole suite's come to some 15 GB, more
    than a CI machine may have free. A failed case's stay, to look at."""
    if not args.keep:
        shutil.rmtree(work_dir(args, case, build), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="fntrace end-to-end tests")
    ap.add_argument("--build", default="build", help="build directory holding fntrace (default: build)")
    ap.add_argument("--update", action="store_true", help="rewrite golden files from the first build")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--keep", action="store_true",
                    help="keep every case's work directory (by default only a failed case's is kept)")
    ap.add_argument("names", nargs="*", help="only cases whose name contains one of these")
    args = ap.parse_args()
    # the cases' programs get signals' default actions: a suite started
    # under nohup (SIGHUP ignored, which exec keeps) made `live`'s program
    # ignore the SIGHUP live-tmpdir sends it, as it should there
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    fntrace = os.path.join(ROOT, args.build, "fntrace")
    os.environ["FNTRACE_LIBCALL"] = "0"     # see the docstring
    LIBDIR[0] = os.path.dirname(os.path.abspath(fntrace))
    if not os.access(fntrace, os.X_OK):
        print("tests: '%s' is not built (run make)" % fntrace, file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    cases = sorted(d for d in os.listdir(CASES) if os.path.exists(os.path.join(CASES, d, "case.json")))
    if args.names:
        cases = [c for c in cases if any(n in c for n in args.names)]
    jobs = [(c, b) for c in cases for b in BUILDS]
    if args.update:
        args.j = 1
    passed = failed = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as ex:
        futs = {ex.submit(run_case, c, b, args, fntrace): (c, b) for c, b in jobs}
        for fut in concurrent.futures.as_completed(futs):
            c, b = futs[fut]
            try:
                r = fut.result()
                if r is None:
                    continue
                passed += 1
                print("ok   %-22s %s" % (c, b), flush=True)
                forget(args, c, b)
            except Skip as e:
                skipped += 1
                print("skip %-22s %s: %s" % (c, b, e), flush=True)
                forget(args, c, b)
            except AssertionError as e:
                failed += 1
                # (where, when the assertion says nothing else)
                print("FAIL %-22s %s\n%s" % (c, b, e if str(e) else traceback.format_exc(limit=-1)), flush=True)
            except Exception:
                failed += 1
                print("FAIL %-22s %s\n%s" % (c, b, traceback.format_exc()), flush=True)
    # the cases' directories that are left empty (not while their other
    # builds run: one's removal raced another's makedirs)
    out = os.path.join(ROOT, "tests", "out", os.path.basename(args.build))
    for c in cases:
        try:
            os.rmdir(os.path.join(out, c))
        except OSError:
            pass
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
