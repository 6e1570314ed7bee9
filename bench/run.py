#!/usr/bin/env python3
"""fntrace benchmark harness (python3 stdlib only).  See bench/README.md.

  python3 bench/run.py            full run (about 5 minutes), writes bench/results.json
  python3 bench/run.py --quick    smoke run for CI (under a minute), writes bench/out/results-quick.json
  python3 bench/run.py --big      also record a >= 1e8-event trace and measure decoding it

Builds the workloads of bench/src several ways into bench/out/, runs each
workload plain, with empty hooks, with the ideal recording hook, under every
`fntrace record` mode and under `uftrace record`, and prints per-call
overhead, trace size, memory, decode speed and start-up cost.  Never asserts
anything about time: the closing "targets" section only reports.
"""
import argparse
import csv
import datetime
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
SRC = os.path.join(BENCH, "src")
HOOKS = os.path.join(BENCH, "hooks")
OUT = os.path.join(BENCH, "out")
TRACES = os.path.join(OUT, "traces")
BUILD = os.path.join(ROOT, "build")  # --build: where fntrace and libfntrace.so are

CC = os.environ.get("CC", "gcc")
CFLAGS = ["-O2", "-g", "-pthread"]
INST = ["-finstrument-functions"]
MT_THREADS = 4

# workload -> (source, size argument list) per profile
SIZES = {
    "full": {"fib": ["33"], "mix": ["330000"], "mt": ["330000", str(MT_THREADS)], "sqlite": ["100000"],
             "libcall": ["3000000"]},
    "quick": {"fib": ["24"], "mix": ["20000"], "mt": ["20000", str(MT_THREADS)], "sqlite": ["3000"],
              "libcall": ["100000"]},
}
DEFAULT_WORKLOADS = "fib,mix,mt,sqlite,libcall"

# the real-world row: sqlite's amalgamation as the npm package better-sqlite3
# ships it (deps/sqlite3/), fetched once into bench/out/sqlite-src/ with
# `npm pack`; bench/src/sqlite.c drives it.  Built once per instrumentation
# (sqlite3.c takes ~30 s per build), then linked like the other workloads.
SQLITE_PKG = "better-sqlite3@12.11.1"
SQLITE_DEFS = ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-DSQLITE_DEFAULT_MEMSTATUS=0"]
BIG_FIB = 37  # 2 * (2*F(38) - 1) = 156 million events

# fntrace record options that select a recording mode (measured), and the
# ones that do not (not measured); anything else in --help is reported
FNTRACE_MODES = [
    ("default", [], None),
    ("no-drain", ["--no-drain"], "--no-drain"),   # the program maps its file itself (before the drained ring)
    ("callsite", ["--callsite"], "--callsite"),
    ("monotonic", ["--clock", "monotonic"], "monotonic"),
    ("ring", ["--ring", "4M"], "--ring"),   # flight recorder: same events, fixed 4M per thread
    # record-time filters: every call filtered out, by a -F that matches
    # nothing (one address-set probe per entry) and by -N '*' (main hidden:
    # each call only counts its depth); and -t, for the bytes it saves
    ("filter-miss", ["-F", "no_such_function"], "--filter"),
    ("notrace-all", ["-N", "*"], "--notrace"),
    ("time-1us", ["-t", "1us"], "--time-filter"),
]
FILTER_MODES = {"fntrace-filter-miss", "fntrace-notrace-all", "fntrace-time-1us",
                "fntrace-patch-none"}  # record less: not counted, not decoded
# library calls on (the other rows record without them, as uftrace --no-libcall):
# more events than the counting build's; measured per library call instead
LIBCALL_METHODS = {"fntrace-libcall": "fntrace-default", "uftrace-libcall": "uftrace"}
# the libcall workload (src/libcall.c): N calls of lc_step, a trivial function
# of an uninstrumented shared library (src/liblc.c), and nothing else traced;
# its rows are measured against the row named third: ns per library call =
# (t - t_base) / N.  fntrace-fentry runs the same loop, uninstrumented, against
# the library built -pg -mfentry: the same calls as fentry functions.
LIBCALL_FN = "lc_step"
# rows on the -pg builds: gcc -O2 -pg makes its own number of calls (in fib it
# turns one of the two recursive calls into a loop), counted from the
# fntrace-fentry trace; their per-call figures divide by that count
PG_METHODS = {"fntrace-fentry", "fntrace-fentry-args", "uftrace-args", "ideal-fentry"}
# -P on the uninstrumented -O2 build (no -finstrument-functions inlining
# changes): its own number of calls, counted from the fntrace-patch trace
PATCH_METHODS = {"fntrace-patch", "uftrace-patch"}
FNTRACE_NON_MODES = {"--output", "--report", "--chunk-size", "--help", "--clock", "--callsite",
                     "--filter", "--notrace", "--depth", "--time-filter", "--module", "--no-thread",
                     "--argument", "--retval", "--auto-args", "--patch",  # -A/-R/--auto-args: the -pg -mfentry rows
                     "--ring", "--snapshot-signal", "--quiet",  # --quiet: no summary walk after the run
                     "--no-libcall", "--libcall", "--nest-libcall"}

UFTRACE_FLAGS = ["--no-libcall", "--no-event", "--no-sched"]

# argument capture (doc/args.md): -pg -mfentry builds under fntrace, without
# and with 2 integer arguments + the return value of every traced function;
# uftrace's -A/-R on a -pg build beside them
FENTRY = ["-pg", "-mfentry"]
ARG_FUNCS = {"fib": ("fib", "fib")}          # workload -> (fntrace glob, uftrace regex); default all


def arg_specs(w):
    glob, rx = ARG_FUNCS.get(w, ("*", ".*"))
    return (["-A", glob + "@arg1,arg2", "-R", glob + "@retval"],
            ["-A", rx + "@arg1,arg2", "-R", rx + "@retval"])

TARGETS = {
    "overhead_vs_ideal": 1.15,        # issue 15 (issue 3 asked 1.25)
    "cpu_vs_ideal": 1.3,              # user+sys of every process involved, record's included
    "fentry_vs_ideal_fentry": 1.15,
    "args_over_fentry_ns": 20.0,      # -A 2 args + -R, above -pg -mfentry without capture
    "uftrace_vs_fntrace": 6.0,
    "bytes_per_event": 4.0,
    "report_events_per_s": 100e6,
    "replay_events_per_s": 20e6,
    "export_events_per_s": 20e6,
    "decode_mem_big_mb": 64.0,
    "startup_ms": 10.0,
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- running

def base_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    for k in list(env):
        if k.startswith("FNTRACE_"):   # the runtime's knobs: the rows say what they set
            del env[k]
    env["FNTRACE_LIBCALL"] = "0"   # record's default: no library calls, except in the *-libcall rows
    return env


def run(cmd, env=None, stdout=None):
    """Run cmd through bench/out/spawn; return dict(wall, cpu, rss_kb, status, out, err).
    stdout is captured to a file (read back) unless stdout == os.devnull."""
    env = env if env is not None else base_env()
    outp = stdout or os.path.join(OUT, "stdout.txt")
    errp = os.path.join(OUT, "stderr.txt")
    resp = os.path.join(OUT, "spawn.txt")
    fo = os.open(outp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    fe = os.open(errp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        acts = [(os.POSIX_SPAWN_DUP2, fo, 1), (os.POSIX_SPAWN_DUP2, fe, 2)]
        spawn = os.path.join(OUT, "spawn")
        pid = os.posix_spawn(spawn, [spawn, resp] + list(cmd), env, file_actions=acts)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fo)
        os.close(fe)
    out = "" if outp == os.devnull else open(outp, errors="replace").read()
    err = open(errp, errors="replace").read()
    if os.waitstatus_to_exitcode(status) != 0:
        return {"wall": 0, "cpu": 0, "rss_kb": 0, "status": -1, "out": out,
                "err": err + " (spawn helper failed)"}
    wall_ns, ut, st, rss, code = (int(x) for x in open(resp).read().split())
    return {"wall": wall_ns / 1e9, "cpu": (ut + st) / 1e6, "rss_kb": rss, "status": code,
            "out": out, "err": err}


def capture(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=base_env(), timeout=120)
        return p.returncode, p.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def du(path):
    rc, out = capture(["du", "-sb", path])
    return int(out.split()[0]) if rc == 0 else None


def rmtree(path):
    shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(path + ".old", ignore_errors=True)


def result_line(out):
    m = re.search(r"^result (\d+)$", out, re.M)
    return m.group(1) if m else None


# ---------------------------------------------------------------- building

def need(target, deps):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(d) > t for d in deps)


def compile_(target, args, deps):
    if not need(target, deps + [__file__]):
        return
    cmd = [CC] + args + ["-o", target]
    log("  " + " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in cmd))
    subprocess.run(cmd, check=True)


def sqlite_source():
    """-> (directory holding sqlite3.c and sqlite3.h, None) or (None, why not)"""
    d = os.path.join(OUT, "sqlite-src")
    if os.path.exists(os.path.join(d, "sqlite3.c")) and os.path.exists(os.path.join(d, "sqlite3.h")):
        return d, None
    os.makedirs(d, exist_ok=True)
    npm = shutil.which("npm")
    if not npm:
        return None, "npm not installed: cannot fetch %s (sqlite's amalgamation)" % SQLITE_PKG
    log("  npm pack %s (sqlite's amalgamation)" % SQLITE_PKG)
    p = subprocess.run([npm, "pack", SQLITE_PKG, "--pack-destination", d], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    tgz = [f for f in os.listdir(d) if f.endswith(".tgz")]
    if p.returncode != 0 or not tgz:
        return None, "npm pack %s failed: %s" % (SQLITE_PKG, p.stdout.strip()[-200:])
    members = ["package/deps/sqlite3/sqlite3.c", "package/deps/sqlite3/sqlite3.h"]
    p = subprocess.run(["tar", "-xzf", os.path.join(d, tgz[0]), "-C", d, "--strip-components=3"] + members,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return None, "unpacking %s failed: %s" % (tgz[0], p.stdout.strip()[-200:])
    return d, None


def build_sqlite(o, h, hdrs):
    """the sqlite workload's builds: sqlite3.c once per instrumentation, then
    the driver linked against it as build() links the other workloads"""
    d, why = sqlite_source()
    if not d:
        return why
    sq = os.path.join(d, "sqlite3.c")
    drv = os.path.join(SRC, "sqlite.c")
    objs = {}
    for kind, flags in (("plain", []), ("inst", INST), ("fentry", FENTRY), ("pg", ["-pg"])):
        objs[kind] = o("sqlite3-%s.o" % kind)
        compile_(objs[kind], CFLAGS + flags + SQLITE_DEFS + ["-c", sq], [sq])
    inc = ["-I" + d]
    deps = [drv, objs["plain"]] + hdrs
    compile_(o("sqlite-plain"), CFLAGS + inc + [drv, objs["plain"], "-lm"], deps)
    compile_(o("sqlite-inst"), CFLAGS + INST + inc + [drv, objs["inst"], "-lm"], deps + [objs["inst"]])
    compile_(o("sqlite-exehooks"), CFLAGS + INST + inc + [drv, objs["inst"], h("empty.c"), "-lm"],
             deps + [objs["inst"], h("empty.c")])
    compile_(o("sqlite-count"), CFLAGS + INST + inc + ["-DBENCH_COUNTING", drv, objs["inst"], h("count.c"), "-lm"],
             deps + [objs["inst"], h("count.c")])
    compile_(o("sqlite-fentry"), CFLAGS + FENTRY + inc + [drv, objs["fentry"], "-lm"], deps + [objs["fentry"]])
    compile_(o("sqlite-pg"), CFLAGS + ["-pg"] + inc + [drv, objs["pg"], "-lm"], deps + [objs["pg"]])
    return None


def build_libcall(o, hdrs):
    """the libcall workload: the loop linked against liblc.so (plain and
    -finstrument-functions), and uninstrumented against liblc-fentry.so, the
    same library built -pg -mfentry"""
    src, lib = os.path.join(SRC, "libcall.c"), os.path.join(SRC, "liblc.c")
    compile_(o("liblc.so"), CFLAGS + ["-fPIC", "-shared", lib], [lib])
    compile_(o("liblc-fentry.so"), CFLAGS + FENTRY + ["-fPIC", "-shared", lib], [lib])
    link = ["-L" + OUT, "-Wl,-rpath,$ORIGIN"]
    deps = [src] + hdrs
    compile_(o("libcall-plain"), CFLAGS + [src] + link + ["-llc"], deps + [o("liblc.so")])
    compile_(o("libcall-inst"), CFLAGS + INST + [src] + link + ["-llc"], deps + [o("liblc.so")])
    compile_(o("libcall-fentry"), CFLAGS + [src] + link + ["-llc-fentry"], deps + [o("liblc-fentry.so")])


def build(workloads, notes):
    os.makedirs(OUT, exist_ok=True)
    hdrs = [os.path.join(SRC, h) for h in ("bench.h", "mixcore.h")]
    h = lambda n: os.path.join(HOOKS, n)
    o = lambda n: os.path.join(OUT, n)
    compile_(o("empty.so"), CFLAGS + ["-fPIC", "-shared", h("empty.c")], [h("empty.c")])
    compile_(o("ideal.so"), CFLAGS + ["-fPIC", "-shared", "-ftls-model=initial-exec", h("ideal.c")],
             [h("ideal.c")])
    # the same with a 16 MiB ring per thread, the size of record's ring: the
    # 1 MiB one stays in the cache, so its stores never reach memory
    compile_(o("ideal-16m.so"), CFLAGS + ["-fPIC", "-shared", "-ftls-model=initial-exec", "-DRING=(1u<<20)",
                                          h("ideal.c")], [h("ideal.c")])
    ife = [h("ideal-fentry.S"), h("ideal-fentry-init.c")]
    compile_(o("ideal-fentry.so"), ["-O2", "-fPIC", "-shared"] + ife, ife)
    for w in list(workloads):
        if w == "libcall":
            build_libcall(o, hdrs)
            continue
        if w == "sqlite":
            why = build_sqlite(o, h, hdrs)
            if why:
                notes.append("sqlite workload skipped: " + why)
                log("  sqlite workload skipped: " + why)
                workloads.remove(w)
            continue
        src = os.path.join(SRC, w + ".c")
        deps = [src] + hdrs
        compile_(o(w + "-plain"), CFLAGS + [src], deps)
        compile_(o(w + "-inst"), CFLAGS + INST + [src], deps)
        compile_(o(w + "-exehooks"), CFLAGS + INST + [src, h("empty.c")], deps + [h("empty.c")])
        compile_(o(w + "-count"), CFLAGS + INST + ["-DBENCH_COUNTING", src, h("count.c")],
                 deps + [h("count.c")])
        compile_(o(w + "-fentry"), CFLAGS + FENTRY + [src], deps)
        compile_(o(w + "-pg"), CFLAGS + ["-pg", src], deps)
    sp = os.path.join(SRC, "spawn.c")
    compile_(o("spawn"), ["-O2", sp], [sp])
    nc = os.path.join(SRC, "nocalls.c")
    compile_(o("nocalls"), CFLAGS + INST + [nc], [nc])
    cg = os.path.join(BENCH, "clone", "clonegap.c")
    compile_(o("clonegap"), ["-O2", cg], [cg])
    hr = os.path.join(BENCH, "floor", "hookrep.c")
    compile_(o("hookrep-plain"), CFLAGS + [hr], [hr])
    compile_(o("hookrep-inst"), CFLAGS + INST + [hr], [hr])
    compile_(o("hookrep-fentry"), CFLAGS + FENTRY + [hr], [hr])
    ac = os.path.join(BENCH, "api", "apicost.c")
    compile_(o("apicost"), CFLAGS + ["-I" + os.path.join(ROOT, "include"), ac],
             [ac, os.path.join(ROOT, "include", "fntrace.h")])


# ---------------------------------------------------------------- tools

def probe_fntrace():
    """-> (available, note, modes, export_formats, unknown_options)"""
    exe = os.path.join(BUILD, "fntrace")
    lib = os.path.join(BUILD, "libfntrace.so")
    if not (os.access(exe, os.X_OK) and os.path.exists(lib)):
        return False, "not built (run make)", [], [], []
    rc, help_ = capture([exe, "record", "--help"])
    if rc != 0:
        return False, "not built ('fntrace record --help' exits %d)" % rc, [], [], []
    modes = [(n, f) for n, f, key in FNTRACE_MODES if key is None or key in help_]
    opts = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", help_, re.M))
    unknown = sorted(opts - FNTRACE_NON_MODES)
    rc, ehelp = capture([exe, "export", "--help"])
    exports = export_formats(ehelp) if rc == 0 else []
    return True, "", modes, exports, unknown


# output file extension per export format (fntrace's default is fntrace.<ext>);
# a format not listed here is written to export.<format>
EXPORT_EXT = {"perfetto": "pftrace", "chrome": "json", "folded": "folded", "svg": "svg", "html": "html"}


def export_formats(help_):
    """The format names `fntrace export --help` lists: the indented lines
    "  NAME   description" after the line ending in "Formats:", up to the
    first blank line (continuation lines are indented deeper)."""
    formats, inside = [], False
    for line in help_.splitlines():
        if line.rstrip().endswith("Formats:"):
            inside = True
            continue
        if inside:
            if not line.strip():
                break
            m = re.match(r"^  ([a-z][a-z0-9-]*) {2,}\S", line)
            if m:
                formats.append(m.group(1))
    return formats


def probe_uftrace():
    exe = shutil.which("uftrace")
    if not exe:
        return None, "uftrace not installed: skipped"
    rc, out = capture([exe, "--version"])
    if rc != 0:
        return None, "uftrace --version failed: skipped"
    return exe, out.strip().splitlines()[0]


# ---------------------------------------------------------------- methods

def methods_for(w, args, fnt, uft):
    """[(name, label, kind, builder)] ; builder(trace_dir) -> (cmd, env)"""
    o = lambda n: os.path.join(OUT, n)
    inst = [o(w + "-inst")] + args

    def preload(so):
        def b(_):
            env = base_env()
            env["LD_PRELOAD"] = o(so)
            return inst, env
        return b

    ms = [
        ("plain", "plain -O2", "base", lambda _: ([o(w + "-plain")] + args, None)),
        ("empty-exe", "empty hooks in exe", "floor", lambda _: ([o(w + "-exehooks")] + args, None)),
        ("empty", "empty hooks, preloaded", "floor", preload("empty.so")),
        ("ideal", "ideal hook (rdtsc+16B)", "floor", preload("ideal.so")),
        ("ideal-16m", "ideal hook, 16 MiB ring per thread", "floor", preload("ideal-16m.so")),
    ]
    fexe = os.path.join(BUILD, "fntrace")
    if fnt["ok"]:
        for name, flags in fnt["modes"]:
            ms.append(("fntrace-" + name, "fntrace record " + (" ".join(flags) or "(default)"), "trace",
                       lambda d, flags=flags: ([fexe, "record", "-q", "-d", d] + flags + ["--"] + inst, None)))
    else:
        ms.append(("fntrace", "fntrace record", "missing", None))
    if fnt["ok"]:
        # the runtime's helper thread that prepares chunks ahead is on by
        # default only with >= 4 CPUs: measure it forced on as well
        def prefault_on(d):
            env = base_env()
            env["FNTRACE_PREFAULT"] = "1"
            return [fexe, "record", "-q", "-d", d, "--"] + inst, env
        ms.append(("prefault-on", "fntrace record, FNTRACE_PREFAULT=1", "trace", prefault_on))
    if fnt["ok"]:
        ms.append(("fntrace-libcall", "fntrace record --libcall (library calls)", "trace",
                   lambda d: ([fexe, "record", "-q", "-d", d, "--libcall", "--"] + inst, None)))
    if uft["exe"]:
        ms.append(("uftrace-libcall", "uftrace record, library calls on", "trace",
                   lambda d: ([uft["exe"], "record", "-d", d] + [f for f in UFTRACE_FLAGS if f != "--no-libcall"]
                              + inst, None)))
    if fnt.get("baseline"):
        bexe = os.path.join(fnt["baseline"], "fntrace")
        ms.append(("baseline-default", "baseline: fntrace record (default)", "trace",
                   lambda d: ([bexe, "record", "-q", "-d", d, "--"] + inst, None)))   # as the default row
    if uft["exe"]:
        ms.append(("uftrace", "uftrace record", "trace",
                   lambda d: ([uft["exe"], "record", "-d", d] + UFTRACE_FLAGS + inst, None)))
    else:
        ms.append(("uftrace", "uftrace record", "missing", None))
    fa, ua = arg_specs(w)
    fentry = [o(w + "-fentry")] + args
    if fnt["ok"]:
        ms.append(("fntrace-fentry", "fntrace record, -pg -mfentry", "trace",
                   lambda d: ([fexe, "record", "-q", "-d", d, "--"] + fentry, None)))

    def ideal_fentry(_):
        env = base_env()
        env["LD_PRELOAD"] = o("ideal-fentry.so")
        return fentry, env
    ms.append(("ideal-fentry", "ideal fentry hook (rdtsc+16B, ret swap), -pg -mfentry", "floor", ideal_fentry))
    if fnt["ok"]:
        ms.append(("fntrace-fentry-args", "fntrace record -A/-R 2 args+ret, -pg -mfentry", "trace",
                   lambda d: ([fexe, "record", "-q", "-d", d] + fa + ["--"] + fentry, None)))
    plain = [o(w + "-plain")] + args
    if fnt["ok"]:
        ms.append(("fntrace-patch", "fntrace record -P '*', no instrumentation", "trace",
                   lambda d: ([fexe, "record", "-q", "-d", d, "-P", "*", "--"] + plain, None)))
        # nothing selected: what an unselected function costs (the run's
        # start-up included)
        ms.append(("fntrace-patch-none", "fntrace record -P no_such_function, no instrumentation", "trace",
                   lambda d: ([fexe, "record", "-q", "-d", d, "-P", "no_such_function", "--"] + plain, None)))
    if uft["exe"]:
        ms.append(("uftrace-patch", "uftrace record -P ., no instrumentation", "trace",
                   lambda d: ([uft["exe"], "record", "-d", d] + UFTRACE_FLAGS + ["-P", "."] + plain, None)))
    if uft["exe"]:
        ms.append(("uftrace-args", "uftrace record -A/-R 2 args+ret, -pg", "trace",
                   lambda d: ([uft["exe"], "record", "-d", d] + UFTRACE_FLAGS + ua + [o(w + "-pg")] + args,
                              None)))
    return ms


def sample_methods(w, ms, runs, res_notes):
    """run every method of ms once per round, a warm-up round first, and
    check each run's result against the plain run's: -> (samples per
    method, failed methods and why, the command of each)"""
    samples = {m[0]: [] for m in ms}
    failed = {}
    commands = {}
    expected = None
    for rnd in range(runs + 1):  # round 0 is the warm-up
        for name, label, kind, b in ms:
            if b is None or name in failed:
                continue
            tdir = os.path.join(TRACES, "%s-%s" % (w, name))
            rmtree(tdir)
            cmd, env = b(tdir)
            commands[name] = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
            if env and "LD_PRELOAD" in env:
                commands[name] = "LD_PRELOAD=%s %s" % (os.path.relpath(env["LD_PRELOAD"], ROOT), commands[name])
            if env and "FNTRACE_PREFAULT" in env:
                commands[name] = "FNTRACE_PREFAULT=%s %s" % (env["FNTRACE_PREFAULT"], commands[name])
            r = run(cmd, env)
            got = result_line(r["out"])
            if name == "plain" and expected is None:
                expected = got
            if r["status"] != 0 or got is None or got != expected:
                why = "exit %d" % r["status"] if r["status"] != 0 else "wrong result %s (plain: %s)" % (got, expected)
                failed[name] = why
                res_notes.append("%s %s FAILED: %s; stderr: %s" % (w, name, why, r["err"].strip()[-300:]))
                log("  %s %s FAILED: %s" % (w, name, why))
                continue
            if rnd > 0:
                samples[name].append(r)
        log("  %s round %d/%d done" % (w, rnd, runs) if rnd else "  %s warm-up done" % w)
    return samples, failed, commands


def timed_row(row, ss):
    """row's wall and CPU times, over the samples ss"""
    walls = [s["wall"] for s in ss]
    row.update({
        "status": "ok",
        "runs": len(ss),
        "wall_s": statistics.median(walls), "wall_min_s": min(walls), "wall_max_s": max(walls),
        "walls_s": walls,
        "cpu_s": statistics.median(s["cpu"] for s in ss),
        "rss_kb": statistics.median(s["rss_kb"] for s in ss),
    })


def measure_workload(w, args, calls, fnt, uft, runs, res_notes):
    ms = methods_for(w, args, fnt, uft)
    samples, failed, commands = sample_methods(w, ms, runs, res_notes)
    rows = []
    plain = samples["plain"]
    pw = statistics.median(s["wall"] for s in plain)
    pc = statistics.median(s["cpu"] for s in plain)
    prss = statistics.median(s["rss_kb"] for s in plain)
    for name, label, kind, b in ms:
        row = {"workload": w, "method": name, "label": label, "kind": kind, "calls": calls,
               "command": commands.get(name)}
        if kind == "missing":
            row["status"] = fnt["note"] if name.startswith("fntrace") else uft["note"]
            rows.append(row)
            continue
        if name in failed:
            row["status"] = "FAILED: " + failed[name]
            rows.append(row)
            continue
        timed_row(row, samples[name])
        row["ns_per_call"] = (row["wall_s"] - pw) / calls * 1e9
        row["ns_per_call_min"] = (row["wall_min_s"] - pw) / calls * 1e9
        row["ns_per_call_max"] = (row["wall_max_s"] - pw) / calls * 1e9
        row["cpu_ns_per_call"] = (row["cpu_s"] - pc) / calls * 1e9
        row["rss_added_kb"] = row["rss_kb"] - prss
        if kind == "trace":
            tdir = os.path.join(TRACES, "%s-%s" % (w, name))
            row["trace_dir"] = tdir
            row["trace_bytes"] = du(tdir)
            if row["trace_bytes"] is not None:
                row["bytes_per_event"] = row["trace_bytes"] / (2 * calls)
        rows.append(row)
    rescale_pg_rows(rows, calls)
    rescale_own_rows(rows, calls, "fntrace-patch", PATCH_METHODS)
    by = {r["method"]: r for r in rows}
    ideal = by.get("ideal", {}).get("ns_per_call")
    uf = by.get("uftrace", {}).get("ns_per_call")
    for r in rows:
        if r.get("status") != "ok" or r["method"] == "plain":
            continue
        if ideal and ideal > 0:
            r["x_ideal"] = r["ns_per_call"] / ideal
        if uf and r["ns_per_call"] > 0 and r["method"] != "uftrace":
            r["uftrace_over_this"] = uf / r["ns_per_call"]
    return rows


def rescale_own_rows(rows, calls, counted, methods):
    """per-call figures of the rows in methods over the calls the trace of
    row `counted` holds"""
    fe = next((r for r in rows if r["method"] == counted and r.get("status") == "ok"), None)
    if not fe or not fe.get("trace_dir"):
        return
    got, _ = fntrace_calls(fe["trace_dir"])
    if not got or got == calls:
        return
    k = calls / got
    for r in rows:
        if r["method"] in methods and r.get("status") == "ok":
            for key in ("ns_per_call", "ns_per_call_min", "ns_per_call_max", "cpu_ns_per_call", "bytes_per_event"):
                if r.get(key) is not None:
                    r[key] *= k
            r["own_calls"] = got


def rescale_pg_rows(rows, calls):
    """per-call figures of the -pg builds over their own call count"""
    rescale_own_rows(rows, calls, "fntrace-fentry", PG_METHODS)


# ---------------------------------------------------------------- checks

def fntrace_calls(tdir, fn=None):
    """the calls `fntrace report` counts in tdir (of the function fn only,
    if given): (count, None), or (None, why)"""
    p = subprocess.run([os.path.join(BUILD, "fntrace"), "report", "-d", tdir, "--format", "csv"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=base_env())
    out = p.stdout
    if p.returncode != 0:
        return None, p.stderr.strip()[-300:]
    # by the header's column names: names may hold commas (C++), and the
    # columns after "calls" grow (signature, module, file)
    rows = list(csv.DictReader(io.StringIO(out)))
    if not rows or "calls" not in rows[0]:
        return None, "no calls column in 'fntrace report --format csv'"
    return sum(int(r["calls"]) for r in rows if (r.get("calls") or "").isdigit()
               and (fn is None or r.get("function") == fn)), None


def uftrace_calls(exe, tdir, fn=None):
    """sum of the Calls column of `uftrace report` (linux:* events left out;
    of the function fn only, if given); also its time"""
    t0 = time.perf_counter()
    r = run([exe, "report", "-d", tdir, "--no-pager"])
    t = time.perf_counter() - t0
    if r["status"] != 0:
        return None, t, r
    total, seen = 0, False
    for line in r["out"].splitlines():
        if line.strip().startswith("===="):
            seen = True
            continue
        tok = line.split()
        if seen and len(tok) >= 6 and tok[4].isdigit() and not tok[5].startswith("linux:") and \
                (fn is None or " ".join(tok[5:]) == fn):
            total += int(tok[4])
    return total, t, r


def libcall_row(w, row, rows, calls, uft, notes):
    """ns per traced library call: the extra wall time over the same
    tracer without library calls, divided by the extra calls it recorded"""
    base = next((r for r in rows if r["method"] == LIBCALL_METHODS[row["method"]] and r.get("status") == "ok"), None)
    if row["method"].startswith("fntrace"):
        got, _ = fntrace_calls(row["trace_dir"])
    else:
        got, _, _ = uftrace_calls(uft["exe"], row["trace_dir"])
    row["traced_calls"] = got
    if not base or not got or got <= calls:
        notes.append("%s %s: no library calls counted (%s)" % (w, row["method"], got))
        return
    row["library_calls"] = got - calls
    row["ns_per_library_call"] = (row["wall_s"] - base["wall_s"]) / row["library_calls"] * 1e9
    notes.append("%s %s: %.1f ns per traced library call (%d library calls over the %s row)" % (
        w, row["method"], row["ns_per_library_call"], row["library_calls"], base["method"]))


def libcall_methods(args, fnt, uft):
    """the libcall workload's rows: [(name, label, kind, builder, base row)]"""
    o = lambda n: os.path.join(OUT, n)
    fexe = os.path.join(BUILD, "fntrace")
    inst, fentry = [o("libcall-inst")] + args, [o("libcall-fentry")] + args
    ms = [("plain", "plain -O2", "base", lambda _: ([o("libcall-plain")] + args, None), None)]
    if fnt["ok"]:
        ms += [
            ("fntrace-off", "fntrace record --no-libcall", "trace",
             lambda d: ([fexe, "record", "-q", "-d", d, "--no-libcall", "--"] + inst, None), "plain"),
            ("fntrace-libcall", "fntrace record --libcall", "trace",
             lambda d: ([fexe, "record", "-q", "-d", d, "--libcall", "--"] + inst, None), "fntrace-off"),
            ("fntrace-fentry", "fntrace record, %s built -pg -mfentry" % LIBCALL_FN, "trace",
             lambda d: ([fexe, "record", "-q", "-d", d, "--no-libcall", "--"] + fentry, None), "fntrace-off"),
        ]
    else:
        ms.append(("fntrace", "fntrace record", "missing", None, None))
    if uft["exe"]:
        flags = [f for f in UFTRACE_FLAGS if f != "--no-libcall"]
        ms += [
            ("uftrace-off", "uftrace record --no-libcall", "trace",
             lambda d: ([uft["exe"], "record", "-d", d, "--no-libcall"] + flags + inst, None), "plain"),
            ("uftrace-libcall", "uftrace record (library calls)", "trace",
             lambda d: ([uft["exe"], "record", "-d", d] + flags + inst, None), "uftrace-off"),
        ]
    else:
        ms.append(("uftrace", "uftrace record", "missing", None, None))
    return ms


def measure_libcall(args, fnt, uft, runs, notes):
    """One library call, measured directly: N calls of a trivial function of
    an uninstrumented shared library, and the same tracer with library calls
    off as the base; the same function built -pg -mfentry for the fentry
    call it is held against.  Each traced row's trace must hold N calls of
    it (the base rows: none)."""
    w, n = "libcall", int(args[0])
    ms = libcall_methods(args, fnt, uft)
    samples, failed, commands = sample_methods(w, [m[:4] for m in ms], runs, notes)
    rows, by = [], {}
    for name, label, kind, b, base in ms:
        row = {"workload": w, "method": name, "label": label, "kind": kind, "base": base,
               "command": commands.get(name)}
        rows.append(row)
        by[name] = row
        if kind == "missing":
            row["status"] = fnt["note"] if name.startswith("fntrace") else uft["note"]
            continue
        if name in failed:
            row["status"] = "FAILED: " + failed[name]
            continue
        timed_row(row, samples[name])
        if kind == "trace":
            tdir = os.path.join(TRACES, "%s-%s" % (w, name))
            row["trace_bytes"] = du(tdir)
            if name.startswith("fntrace"):
                got, _ = fntrace_calls(tdir, LIBCALL_FN)
            else:
                got, _, _ = uftrace_calls(uft["exe"], tdir, LIBCALL_FN)
            row["traced_calls"] = got
            want = 0 if base == "plain" else n
            if got != want:
                notes.append("libcall %s: the trace holds %s calls of %s, not %d" % (name, got, LIBCALL_FN, want))
            rmtree(tdir)
        b = by.get(base)
        if b and b.get("status") == "ok":
            row["ns_per_call"] = (row["wall_s"] - b["wall_s"]) / n * 1e9
            row["ns_per_call_min"] = (row["wall_min_s"] - b["wall_min_s"]) / n * 1e9
            row["cpu_ns_per_call"] = (row["cpu_s"] - b["cpu_s"]) / n * 1e9
    return {"name": w, "args": args, "calls": n, "rows": rows}


# ---------------------------------------------------------------- decoding

def measure_decode(w, mode, tdir, calls, exports, runs):
    """report, replay and every export format: timed runs write to /dev/null
    (`-o -`), so they measure fntrace, not the disk; one more run writes the
    export to a file in the trace dir for its size (the `to file` time, with
    the fsync before the rename, is reported beside it)."""
    exe = os.path.join(BUILD, "fntrace")
    cmds = [("report", [exe, "report", "-d", tdir]),
            ("replay", [exe, "replay", "-d", tdir])]
    outputs = {}
    for f in exports:
        outputs["export " + f] = os.path.join(tdir, "export." + EXPORT_EXT.get(f, f))
        cmds.append(("export " + f, [exe, "export", "-d", tdir, "--format", f, "-o", "-"]))
    rows = []
    for what, cmd in cmds:
        ss, bad, size, to_file = [], None, None, None
        outp = outputs.get(what)
        for _ in range(runs):
            r = run(cmd, stdout=os.devnull)
            if r["status"] != 0:
                lines = [l for l in r["err"].splitlines() if l.strip()]
                bad = "exit %d: %s" % (r["status"], (lines[0] if outp and lines else r["err"].strip())[-200:])
                break
            ss.append(r)
        if outp and not bad:
            if os.path.exists(outp):
                os.unlink(outp)
            r = run(cmd[:-1] + [outp], stdout=os.devnull)
            size = os.path.getsize(outp) if r["status"] == 0 and os.path.exists(outp) else None
            if size is None:
                bad = "writing '%s' failed: %s" % (os.path.relpath(outp, ROOT), r["err"].strip()[-200:])
            to_file = r["wall"]
            if os.path.exists(outp):
                os.unlink(outp)     # keep the trace directory as recorded
        row = {"workload": w, "mode": mode, "what": what, "events": 2 * calls,
               "command": " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd) +
               " > /dev/null"}
        if bad:
            row["status"] = ("skipped: " if outp else "FAILED: ") + bad
        else:
            walls = [s["wall"] for s in ss]
            row.update({"status": "ok", "runs": len(ss), "wall_s": statistics.median(walls),
                        "wall_min_s": min(walls), "wall_max_s": max(walls),
                        "events_per_s": 2 * calls / statistics.median(walls),
                        "rss_kb": max(s["rss_kb"] for s in ss)})
            if outp:
                row["output_bytes"] = size
                row["output_bytes_per_event"] = size / (2 * calls)
                row["to_file_s"] = to_file
        rows.append(row)
    return rows


def measure_api(fnt, runs):
    """The in-program API (bench/api/apicost.c, FNT_WEAK, not linked with the
    runtime): ns per iteration of each construct, median of `runs`, without
    the runtime and under `fntrace record` (default and --ring)."""
    exe = os.path.join(OUT, "apicost")
    fexe = os.path.join(ROOT, "build", "fntrace")
    n = "20000000"
    setups = [("without the runtime", [exe, n])]
    if fnt["ok"]:
        tdir = os.path.join(TRACES, "api")
        setups.append(("fntrace record", [fexe, "record", "-q", "-d", tdir, "--", exe, n]))
        setups.append(("fntrace record --ring 4M", [fexe, "record", "-q", "-d", tdir, "--ring", "4M", "--", exe, n]))
    rows = []
    for label, cmd in setups:
        got = {}
        for _ in range(runs):
            rmtree(os.path.join(TRACES, "api"))
            r = run(cmd)
            for m in re.finditer(r"^api (\S+) (-?[\d.]+)$", r["out"], re.M):
                got.setdefault(m.group(1), []).append(float(m.group(2)))
        rmtree(os.path.join(TRACES, "api"))
        rows.append({"setup": label, "command": " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                                                          for c in cmd),
                     "ns": {k: statistics.median(v) for k, v in got.items()}})
    return rows


def measure_startup(fnt, uft, n):
    nc = [os.path.join(OUT, "nocalls")]
    tdir = os.path.join(TRACES, "startup")
    ms = [("plain", lambda: nc)]
    if fnt["ok"]:
        ms.append(("fntrace", lambda: [os.path.join(BUILD, "fntrace"), "record", "-q", "-d", tdir, "--"] + nc))
    if uft["exe"]:
        ms.append(("uftrace", lambda: [uft["exe"], "record", "-d", tdir] + UFTRACE_FLAGS + nc))
    t = {m: [] for m, _ in ms}
    bad = {}
    for i in range(n + 2):
        for m, c in ms:
            rmtree(tdir)
            r = run(c())
            if r["status"] != 0:
                bad[m] = "exit %d: %s" % (r["status"], r["err"].strip()[-200:])
            if i >= 2:
                t[m].append(r["wall"] * 1e3)
    rmtree(tdir)
    res = {"runs": n, "program": "bench/out/nocalls (instrumented, but makes no traced call)"}
    for m, _ in ms:
        res[m + "_ms"] = statistics.median(t[m])
        res[m + "_min_ms"] = min(t[m])
        res[m + "_max_ms"] = max(t[m])
        if m != "plain":
            res[m + "_added_ms"] = res[m + "_ms"] - res["plain_ms"]
        if m in bad:
            res[m + "_error"] = bad[m]
    return res


def measure_clone_gap(n):
    """bench/clone/clonegap.c: the shortest pause a hand-made vfork leaves
    between its parent's last instruction and its child's first, against
    the runtime's FNT_GAP_TICKS / FNT_GAP_NS bound (doc/safety.md)."""
    r = run([os.path.join(OUT, "clonegap"), str(n)])
    if r["status"] != 0:
        return {"error": "exit %d: %s" % (r["status"], r["err"].strip()[-200:])}
    res = {}
    for line in r["out"].splitlines():
        k, _, v = line.partition(" ")
        res[k] = float(v)
    return res


HOOKREP_ARGS = ["18", "1000"]     # fib(18): 8,361 calls a repetition, the best of 1,000


def measure_hookrep(fnt, rounds):
    """bench/floor/hookrep.c: each hook's cost per call with the machine to
    itself, from the fastest of 1,000 timed repetitions of fib(18), the best
    of `rounds` runs, the methods interleaved.  The recording rows above
    time whole runs, which a loaded machine stretches; this one does not
    move with the load, so it tells a change in the hooks from noise."""
    o = lambda n: os.path.join(OUT, n)
    fexe = os.path.join(BUILD, "fntrace")

    def preload(so, exe):
        env = base_env()
        env["LD_PRELOAD"] = o(so)
        return [o(exe)] + HOOKREP_ARGS, env

    def rec(exe, flags=()):
        return [fexe, "record", "-q", "-d", os.path.join(TRACES, "hookrep")] + list(flags) + \
            ["--", o(exe)] + HOOKREP_ARGS, None
    ms = [("plain", "plain -O2", lambda: ([o("hookrep-plain")] + HOOKREP_ARGS, None)),
          ("ideal", "ideal hook (rdtsc+16B)", lambda: preload("ideal.so", "hookrep-inst")),
          ("ideal-fentry", "ideal fentry hook (rdtsc+16B, ret swap)", lambda: preload("ideal-fentry.so",
                                                                                      "hookrep-fentry"))]
    if fnt["ok"]:
        ms += [("fntrace-default", "fntrace record (default), -finstrument-functions", lambda: rec("hookrep-inst")),
               ("fntrace-fentry", "fntrace record, -pg -mfentry", lambda: rec("hookrep-fentry")),
               ("fntrace-fentry-args", "fntrace record -A/-R 2 args+ret, -pg -mfentry",
                lambda: rec("hookrep-fentry", ["-A", "fib@arg1,arg2", "-R", "fib@retval"])),
               ("fntrace-patch", "fntrace record -P fib, no instrumentation",
                lambda: rec("hookrep-plain", ["-P", "fib"]))]
    best = {}
    for _ in range(rounds):
        for m, label, b in ms:
            cmd, env = b()
            r = run(cmd, env)
            mm = re.search(r"^best_ns_per_call ([\d.]+) calls (\d+)", r["out"], re.M)
            if r["status"] != 0 or not mm:
                best.setdefault(m, None)
                continue
            v = float(mm.group(1))
            best[m] = v if best.get(m) is None else min(best[m], v)
    rmtree(os.path.join(TRACES, "hookrep"))
    plain = best.get("plain")
    rows = []
    for m, label, _ in ms:
        v = best.get(m)
        row = {"method": m, "label": label, "best_ns_per_call": v}
        if v is not None and plain is not None and m != "plain":
            row["overhead_ns"] = v - plain
        rows.append(row)
    by = {r["method"]: r for r in rows}
    for m, floor in (("fntrace-default", "ideal"), ("fntrace-fentry", "ideal-fentry")):
        a, f_ = by.get(m, {}).get("overhead_ns"), by.get(floor, {}).get("overhead_ns")
        if a is not None and f_:
            by[m]["x_floor"] = a / f_
    return {"args": HOOKREP_ARGS, "rounds": rounds, "rows": rows}


def measure_big(fnt, runs_unused, notes):
    w = "fib"
    build(["fib"])
    r = run([os.path.join(OUT, "fib-count"), str(BIG_FIB)])
    calls = int(re.search(r"^calls (\d+)$", r["out"], re.M).group(1))
    tdir = os.path.join(TRACES, "big")
    rmtree(tdir)
    cmd = [os.path.join(BUILD, "fntrace"), "record", "-q", "-d", tdir, "--", os.path.join(OUT, "fib-inst"), str(BIG_FIB)]
    log("  big: recording fib %d (%d events)" % (BIG_FIB, 2 * calls))
    rr = run(cmd)
    res = {"workload": "fib %d" % BIG_FIB, "calls": calls, "events": 2 * calls,
           "record_command": " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd),
           "record_wall_s": rr["wall"], "record_status": rr["status"]}
    if rr["status"] != 0:
        res["status"] = "FAILED: record exit %d: %s" % (rr["status"], rr["err"].strip()[-300:])
        notes.append("big trace: " + res["status"])
        return res
    res["trace_bytes"] = du(tdir)
    res["bytes_per_event"] = res["trace_bytes"] / (2 * calls)
    got, err = fntrace_calls(tdir)
    res["fntrace_report_calls"] = got
    if got != calls:
        notes.append("big trace: fntrace report counts %s calls, expected %d %s" % (got, calls, err or ""))
    log("  big: decoding")
    res["decode"] = measure_decode("fib-big", "default", tdir, calls, fnt["exports"], 1)
    export_notes(res["decode"], notes)
    res["status"] = "ok"
    rmtree(tdir)
    return res


def export_notes(decode, notes):
    """one note per export format that was skipped, with its first error"""
    seen = set()
    for d in decode:
        if d["what"].startswith("export ") and d["status"].startswith("skipped") and d["what"] not in seen:
            seen.add(d["what"])
            notes.append("%s skipped (%s): %s" % (d["what"], d["workload"], d["status"][len("skipped: "):]))


# ---------------------------------------------------------------- output

def table(headers, rows, right=None):
    w = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r):
            w[i] = max(w[i], len(c))
    right = right if right is not None else set(range(1, len(headers)))
    def fmt(r):
        return "  ".join(c.rjust(w[i]) if i in right else c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
    lines = [fmt(headers), "  ".join("-" * x for x in w)]
    lines += [fmt(r) for r in rows]
    return "\n".join(lines)


def f(x, spec, dash="-"):
    return dash if x is None else format(x, spec)


def out_size(d):
    """[MB, bytes/event] of an export's output file ("-" for report/replay)"""
    if d.get("output_bytes") is None:
        return ["-", "-"]
    return ["%.1f" % (d["output_bytes"] / 1e6), "%.2f" % d["output_bytes_per_event"]]


def print_results(R):
    out = []
    out.append("fntrace benchmark  %s  %s, %d cpus  (%s)" % (R["date"], R["machine"]["cpu"], R["machine"]["nproc"], R["profile"]))
    out.append("")
    out.append("Recording overhead: median of %d runs after a warm-up (min..max); ns/call = (t - t_plain) / calls" % R["runs"])
    hdr = ["workload", "method", "median s", "min..max s", "ns/call", "min..max", "cpu ns/call",
           "x ideal", "uftrace/x", "trace MB", "B/event", "+RSS MB"]
    rows = []
    for wl in R["workloads"]:
        first = True
        for r in wl["rows"]:
            name = ("%s (%s calls)" % (wl["name"], format(wl["calls"], ","))) if first else ""
            first = False
            if r["status"] != "ok":
                rows.append([name, r["label"], r["status"]] + [""] * 9)
                continue
            base = r["method"] == "plain"
            rows.append([
                name, r["label"], f(r["wall_s"], ".3f"),
                "%.3f..%.3f" % (r["wall_min_s"], r["wall_max_s"]),
                "-" if base else f(r["ns_per_call"], ".1f"),
                "-" if base else "%.1f..%.1f" % (r["ns_per_call_min"], r["ns_per_call_max"]),
                "-" if base else f(r["cpu_ns_per_call"], ".1f"),
                f(r.get("x_ideal"), ".2f"), f(r.get("uftrace_over_this"), ".1f"),
                f(r["trace_bytes"] / 1e6 if r.get("trace_bytes") is not None else None, ".1f"),
                f(r.get("bytes_per_event"), ".2f"),
                "-" if base else f(r["rss_added_kb"] / 1024, ".1f"),
            ])
    out.append(table(hdr, rows, right=set(range(2, 12))))
    lc = R.get("libcall")
    if lc:
        out.append("")
        out.append("One library call (bench/src/libcall.c: %s calls of %s, a trivial function of an uninstrumented "
                   "shared library): ns/call = (t - t_base) / calls, medians (and mins) of %d runs"
                   % (format(lc["calls"], ","), LIBCALL_FN, R["runs"]))
        rows = []
        for r in lc["rows"]:
            if r["status"] != "ok":
                rows.append([r["label"], r["status"], "", "", "", "", ""])
                continue
            per = r.get("ns_per_call") is not None
            rows.append([r["label"], f(r["wall_s"], ".3f"), "%.3f..%.3f" % (r["wall_min_s"], r["wall_max_s"]),
                         r["base"] or "-", f(r.get("ns_per_call"), ".1f") if per else "-",
                         f(r.get("ns_per_call_min"), ".1f") if per else "-",
                         f(r["trace_bytes"] / 1e6 if r.get("trace_bytes") is not None else None, ".1f")])
        out.append(table(["method", "median s", "min..max s", "base", "ns/call", "(mins)", "trace MB"], rows,
                         right={1, 2, 4, 5, 6}))
    if R["decode"]:
        out.append("")
        out.append("Decode speed (report/replay to /dev/null, export to a file; median of %d; RSS = peak of the decoder)"
                   % R["decode_runs"])
        rows = []
        for d in R["decode"]:
            if d["status"] != "ok":
                st = "skipped (notes)" if d["status"].startswith("skipped") else d["status"]
                rows.append([d["workload"], d["mode"], d["what"], format(d["events"], ","), st, "", "", "", ""])
            else:
                rows.append([d["workload"], d["mode"], d["what"], format(d["events"], ","), "%.3f" % d["wall_s"],
                             "%.1f" % (d["events_per_s"] / 1e6), "%.1f" % (d["rss_kb"] / 1024)] + out_size(d))
        out.append(table(["trace", "mode", "decoder", "events", "s", "Mev/s", "RSS MB", "out MB", "out B/event"], rows,
                         right={3, 4, 5, 6, 7, 8}))
    if R.get("big"):
        b = R["big"]
        out.append("")
        if b.get("status") != "ok":
            out.append("Big trace: " + b.get("status", "?"))
        else:
            out.append("Big trace: %s, %s events, %.0f MB on disk (%.2f B/event), recorded in %.1f s" % (
                b["workload"], format(b["events"], ","), b["trace_bytes"] / 1e6, b["bytes_per_event"], b["record_wall_s"]))
            rows = []
            for d in b["decode"]:
                if d["status"] != "ok":
                    rows.append([d["what"], "skipped (notes)" if d["status"].startswith("skipped") else d["status"],
                                 "", "", "", ""])
                else:
                    rows.append([d["what"], "%.2f" % d["wall_s"], "%.1f" % (d["events_per_s"] / 1e6),
                                 "%.1f" % (d["rss_kb"] / 1024)] + out_size(d))
            out.append(table(["decoder", "s", "Mev/s", "RSS MB", "out MB", "out B/event"], rows))
    if R.get("api"):
        out.append("")
        out.append("In-program API (bench/api/apicost.c, uninstrumented, FNT_WEAK): ns per use, "
                   "median of %d runs" % R["api_runs"])
        keys = ["FNT_SCOPE", "FNT_SCOPE_NAMED", "fnt_mark"]
        out.append(table(["setup"] + keys, [[a["setup"]] + [f(a["ns"].get(k), ".2f") for k in keys]
                                            for a in R["api"]], right=set(range(1, 4))))
    s = R.get("startup")
    if s:
        out.append("")
        line = "Start-up (no traced call, median of %d): plain %.2f ms" % (s["runs"], s["plain_ms"])
        for m in ("fntrace", "uftrace"):
            if m + "_ms" in s:
                line += ", %s record %.2f ms (+%.2f)" % (m, s[m + "_ms"], s[m + "_added_ms"])
                if m + "_error" in s:
                    line += " [%s]" % s[m + "_error"]
        out.append(line)
    h = R.get("hookrep")
    if h:
        out.append("")
        out.append("Hook cost alone (bench/floor/hookrep.c: the fastest of %s timed repetitions of fib(%s), "
                   "best of %d runs): ns per call, overhead over plain, and x its floor"
                   % (h["args"][1], h["args"][0], h["rounds"]))
        out.append(table(["method", "ns/call", "overhead ns", "x floor"],
                         [[r["label"], f(r["best_ns_per_call"], ".2f"), f(r.get("overhead_ns"), ".2f"),
                           f(r.get("x_floor"), ".2f")] for r in h["rows"]]))
    g = R.get("clone_gap")
    if g and "min_ns" in g:
        out.append("")
        out.append("Hand-made vfork (bench/clone/clonegap.c, %d clones): the child's first instruction "
                   "comes at least %d ticks (%.1f us) after its parent's last, median %.1f us: %.1fx the "
                   "runtime's bound of 8192 ticks, %.1fx its 2048 ns under --clock monotonic"
                   % (g["clones"], g["min_ticks"], g["min_ns"] / 1e3, g["median_ns"] / 1e3,
                      g["margin_tsc"], g["margin_monotonic"]))
    elif g:
        out.append("")
        out.append("Hand-made vfork gap: " + g.get("error", "?"))
    if R["targets"]:
        out.append("")
        out.append("Targets (issues 3, 10 and 15), this run:")
        rows = [[t["figure"], t["target"], t["measured"], t["verdict"]] for t in R["targets"]]
        out.append(table(["figure", "target", "measured", ""], rows, right=set()))
    if R["notes"]:
        out.append("")
        out.append("Notes:")
        out += ["  - " + n for n in R["notes"]]
    print("\n".join(out))


def evaluate_targets(R):
    T = []

    def add(fig, target, measured, ok):
        T.append({"figure": fig, "target": target, "measured": measured,
                  "verdict": "n/a" if ok is None else ("met" if ok else "MISSED")})

    by = {(wl["name"], r["method"]): r for wl in R["workloads"] for r in wl["rows"]}
    ok = lambda r: r is not None and r.get("status") == "ok"
    for wname in ("fib", "mix", "mt", "sqlite"):
        fr, ir, ur = by.get((wname, "fntrace-default")), by.get((wname, "ideal")), by.get((wname, "uftrace"))
        if not (ok(fr) and ok(ir)):
            continue
        x = fr["ns_per_call"] / ir["ns_per_call"] if ir["ns_per_call"] > 0 else None
        add("%s: overhead vs ideal floor" % wname, "<= %.2fx" % TARGETS["overhead_vs_ideal"],
            "%.2fx (%.1f vs %.1f ns/call)" % (x, fr["ns_per_call"], ir["ns_per_call"]) if x else "?",
            x is not None and x <= TARGETS["overhead_vs_ideal"])
        x = fr["cpu_ns_per_call"] / ir["cpu_ns_per_call"] if ir["cpu_ns_per_call"] > 0 else None
        add("%s: CPU (all processes) vs ideal floor" % wname, "<= %.2fx" % TARGETS["cpu_vs_ideal"],
            "%.2fx (%.1f vs %.1f ns/call)" % (x, fr["cpu_ns_per_call"], ir["cpu_ns_per_call"]) if x else "?",
            x is not None and x <= TARGETS["cpu_vs_ideal"])
        i16 = by.get((wname, "ideal-16m"))
        if ok(i16) and i16["ns_per_call"] > 0:
            x = fr["ns_per_call"] / i16["ns_per_call"]
            add("%s: overhead vs ideal hook with a 16 MiB ring" % wname, "(reported)",
                "%.2fx (%.1f vs %.1f ns/call)" % (x, fr["ns_per_call"], i16["ns_per_call"]), None)
        fe, ife, fa = (by.get((wname, m)) for m in ("fntrace-fentry", "ideal-fentry", "fntrace-fentry-args"))
        if ok(fe) and ok(ife) and ife["ns_per_call"] > 0:
            x = fe["ns_per_call"] / ife["ns_per_call"]
            add("%s: -pg -mfentry vs ideal fentry hook" % wname, "<= %.2fx" % TARGETS["fentry_vs_ideal_fentry"],
                "%.2fx (%.1f vs %.1f ns/call)" % (x, fe["ns_per_call"], ife["ns_per_call"]),
                x <= TARGETS["fentry_vs_ideal_fentry"])
        if ok(fe) and ok(fa):
            d = fa["ns_per_call"] - fe["ns_per_call"]
            add("%s: -A 2 args + -R, above -pg -mfentry" % wname, "<= %.0f ns" % TARGETS["args_over_fentry_ns"],
                "%+.1f ns (%.1f vs %.1f ns/call)" % (d, fa["ns_per_call"], fe["ns_per_call"]),
                d <= TARGETS["args_over_fentry_ns"])
        fp, up = by.get((wname, "fntrace-patch")), by.get((wname, "uftrace-patch"))
        if ok(fp) and ok(fe) and fe["ns_per_call"] > 0:
            x = fp["ns_per_call"] / fe["ns_per_call"]
            add("%s: -P call vs -pg -mfentry call" % wname, "<= 1.20x",
                "%.2fx (%.1f vs %.1f ns/call)" % (x, fp["ns_per_call"], fe["ns_per_call"]), x <= 1.2)
        if ok(fp) and ok(up) and fp["ns_per_call"] > 0:
            add("%s: uftrace -P / fntrace -P overhead" % wname, "(reported)",
                "%.1fx (%.1f vs %.1f ns/call)" % (up["ns_per_call"] / fp["ns_per_call"], up["ns_per_call"],
                                                 fp["ns_per_call"]), None)
        if ok(ur) and fr["ns_per_call"] > 0:
            y = ur["ns_per_call"] / fr["ns_per_call"]
            add("%s: uftrace / fntrace overhead" % wname, ">= %.0fx" % TARGETS["uftrace_vs_fntrace"],
                "%.1fx (%.1f vs %.1f ns/call)" % (y, ur["ns_per_call"], fr["ns_per_call"]),
                y >= TARGETS["uftrace_vs_fntrace"])
        if fr.get("bytes_per_event") is not None:
            add("%s: bytes per event (default mode)" % wname, "<= %.0f" % TARGETS["bytes_per_event"],
                "%.2f" % fr["bytes_per_event"], fr["bytes_per_event"] <= TARGETS["bytes_per_event"])
    hr = {r["method"]: r for r in (R.get("hookrep") or {}).get("rows", [])}
    for m, floor, key in (("fntrace-default", "ideal", "overhead_vs_ideal"),
                          ("fntrace-fentry", "ideal-fentry", "fentry_vs_ideal_fentry")):
        x = hr.get(m, {}).get("x_floor")
        if x is not None:
            add("hook alone (best repetition): %s vs %s" % (m, floor), "<= %.2fx" % TARGETS[key],
                "%.2fx (%.2f vs %.2f ns/call)" % (x, hr[m]["overhead_ns"], hr[floor]["overhead_ns"]),
                x <= TARGETS[key])
    fa, fe_ = hr.get("fntrace-fentry-args", {}).get("overhead_ns"), hr.get("fntrace-fentry", {}).get("overhead_ns")
    if fa is not None and fe_ is not None:
        add("hook alone (best repetition): -A/-R above -pg -mfentry", "<= %.0f ns" % TARGETS["args_over_fentry_ns"],
            "%+.1f ns" % (fa - fe_), fa - fe_ <= TARGETS["args_over_fentry_ns"])
    lc = {r["method"]: r for r in (R.get("libcall") or {}).get("rows", [])}
    on, fe, ul = lc.get("fntrace-libcall"), lc.get("fntrace-fentry"), lc.get("uftrace-libcall")
    if ok(on) and ok(fe) and on.get("ns_per_call") is not None and fe.get("ns_per_call"):
        add("libcall: a library call vs a -pg -mfentry call", "<= 1.00x",
            "%.2fx (%.1f vs %.1f ns/call)" % (on["ns_per_call"] / fe["ns_per_call"], on["ns_per_call"],
                                             fe["ns_per_call"]), on["ns_per_call"] <= fe["ns_per_call"])
    if ok(on) and ok(ul) and on.get("ns_per_call") and ul.get("ns_per_call") is not None:
        add("libcall: uftrace / fntrace per library call", "(reported)",
            "%.1fx (%.1f vs %.1f ns/call)" % (ul["ns_per_call"] / on["ns_per_call"], ul["ns_per_call"],
                                             on["ns_per_call"]), None)
    mt, mix = by.get(("mt", "fntrace-default")), by.get(("mix", "fntrace-default"))
    if ok(mt) and ok(mix):
        add("mt vs mix: CPU ns per call", "mt <= mix", "%.1f vs %.1f (wall: %.1f vs %.1f)" % (
            mt["cpu_ns_per_call"], mix["cpu_ns_per_call"], mt["ns_per_call"], mix["ns_per_call"]),
            mt["cpu_ns_per_call"] <= mix["cpu_ns_per_call"] * 1.05)
    for what, key in (("report", "report_events_per_s"), ("replay", "replay_events_per_s"),
                      ("export chrome", "export_events_per_s"), ("export perfetto", "export_events_per_s")):
        ds = [d for d in R["decode"] if d["what"] == what and d["status"] == "ok" and d["mode"] == "default"]
        if ds:
            lo = min(d["events_per_s"] for d in ds)
            add("%s decode speed (slowest trace)" % what, ">= %.0f Mev/s" % (TARGETS[key] / 1e6),
                "%.1f Mev/s" % (lo / 1e6), lo >= TARGETS[key])
        elif what.startswith("export"):
            fmt = what.split()[1]
            why = ("no 'fntrace export'" if not R["fntrace"]["exports"] else
                   "not in 'fntrace export --help'" if fmt not in R["fntrace"]["exports"] else "export failed (notes)")
            add("%s decode speed" % what, ">= %.0f Mev/s" % (TARGETS[key] / 1e6), why, None)
    b = R.get("big")
    if b and b.get("status") == "ok":
        for d in b["decode"]:
            if d["status"] == "ok":
                add("%s memory on %.2g-event trace" % (d["what"], b["events"]),
                    "<= %.0f MB" % TARGETS["decode_mem_big_mb"], "%.1f MB" % (d["rss_kb"] / 1024),
                    d["rss_kb"] / 1024 <= TARGETS["decode_mem_big_mb"])
    s = R.get("startup")
    if s and "fntrace_added_ms" in s:
        add("start-up cost of fntrace record", "<= %.0f ms" % TARGETS["startup_ms"],
            "+%.2f ms" % s["fntrace_added_ms"], s["fntrace_added_ms"] <= TARGETS["startup_ms"])
    g = R.get("clone_gap") or {}
    if "min_ns" in g:
        add("hand-made vfork: shortest clone vs the runtime's pause bound (issue 11)", ">= 8192 ticks, >= 2048 ns",
            "%d ticks, %.0f ns (%.1fx, %.1fx)" % (g["min_ticks"], g["min_ns"], g["margin_tsc"], g["margin_monotonic"]),
            g["min_ticks"] >= 8192 and g["min_ns"] >= 2048)
    return T


# ---------------------------------------------------------------- main

def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rc, gcc = capture([CC, "--version"])
    rc2, commit = capture(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    return {"cpu": cpu, "nproc": os.cpu_count(), "kernel": os.uname().release,
            "cc": gcc.splitlines()[0] if rc == 0 else CC,
            "git_commit": commit.strip() if rc2 == 0 else None,
            "loadavg_start": os.getloadavg()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, 1 run, no uftrace (CI smoke test)")
    ap.add_argument("--big", action="store_true", help="also record and decode a >= 1e8-event trace")
    ap.add_argument("--runs", type=int, help="timed runs per method (default 5, quick 1)")
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS,
                    help="comma-separated subset of %s (sqlite: fetched with npm pack %s)" % (DEFAULT_WORKLOADS, SQLITE_PKG))
    ap.add_argument("--no-uftrace", action="store_true", help="leave uftrace out")
    ap.add_argument("--keep", action="store_true", help="keep the traces in bench/out/traces")
    ap.add_argument("--build", help="directory holding fntrace and libfntrace.so (default build/), "
                    "e.g. a copy of an older build to compare with")
    ap.add_argument("--baseline", metavar="DIR",
                    help="also measure the default mode of the fntrace in DIR (e.g. a copy of an older build/) "
                    "in the same rounds: before/after against the same floors")
    ap.add_argument("--json", help="output file (default bench/results.json; quick: bench/out/results-quick.json)")
    a = ap.parse_args()
    global BUILD
    if a.build:
        BUILD = os.path.abspath(a.build)
    profile = "quick" if a.quick else "full"
    runs = a.runs or (1 if a.quick else 5)
    dec_runs = 1 if a.quick else 3
    workloads = [w for w in a.workloads.split(",") if w]
    for w in workloads:
        if w not in SIZES["full"]:
            ap.error("unknown workload " + w)
    jpath = a.json or (os.path.join(OUT, "results-quick.json") if a.quick else os.path.join(BENCH, "results.json"))
    t_start = time.time()

    notes = []
    log("building into bench/out/")
    build(workloads, notes)
    os.makedirs(TRACES, exist_ok=True)

    ok, note, modes, exports, unknown = probe_fntrace()
    fnt = {"ok": ok, "note": note, "modes": modes, "exports": exports}
    if a.baseline:
        bdir = os.path.abspath(a.baseline)
        if os.access(os.path.join(bdir, "fntrace"), os.X_OK) and os.path.exists(os.path.join(bdir, "libfntrace.so")):
            fnt["baseline"] = bdir
            notes.append("baseline rows: %s/fntrace record (default mode)" % bdir)
        else:
            notes.append("--baseline %s: no fntrace and libfntrace.so there: not measured" % a.baseline)
    if not ok:
        notes.append("fntrace " + note + ": its rows say so")
    else:
        notes.append("fntrace record modes measured: " + ", ".join(n for n, _ in modes))
        if unknown:
            notes.append("fntrace record --help lists options this harness does not know (not measured): " + " ".join(unknown))
        if not exports:
            notes.append("'fntrace export --help' fails or lists no format: export speed not measured")
        else:
            notes.append("export formats from 'fntrace export --help': " + ", ".join(exports))
    if a.quick or a.no_uftrace:
        uft = {"exe": None, "note": "skipped (%s)" % ("--quick" if a.quick else "--no-uftrace")}
    else:
        exe, un = probe_uftrace()
        uft = {"exe": exe, "note": un if not exe else "", "version": un if exe else None}
        if not exe:
            notes.append(un)
        else:
            notes.append("uftrace: %s, `uftrace record %s` on the same -finstrument-functions binary" % (un, " ".join(UFTRACE_FLAGS)))

    R = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
         "profile": profile, "runs": runs, "decode_runs": dec_runs, "machine": machine(),
         "fntrace_build": BUILD, "baseline_build": fnt.get("baseline"),
         "build": {"cc": CC, "plain": CFLAGS, "instrumented": CFLAGS + INST,
                   "empty.so": "bench/hooks/empty.c -fPIC -shared",
                   "ideal.so": "bench/hooks/ideal.c -fPIC -shared -ftls-model=initial-exec",
                   "ideal-16m.so": "bench/hooks/ideal.c -fPIC -shared -ftls-model=initial-exec -DRING=(1u<<20)"},
         "fntrace": {"available": ok, "note": note, "modes": [{"name": n, "flags": fl} for n, fl in modes],
                     "exports": exports},
         "uftrace": {"available": bool(uft["exe"]), "note": uft.get("version") or uft["note"],
                     "flags": UFTRACE_FLAGS},
         "workloads": [], "decode": [], "notes": notes}

    for w in workloads:
        args = SIZES[profile][w]
        if w == "libcall":
            log("libcall %s: one library call" % " ".join(args))
            R["libcall"] = measure_libcall(args, fnt, uft, runs, notes)
            continue
        r = run([os.path.join(OUT, w + "-count")] + args)
        m = re.search(r"^calls (\d+)$", r["out"], re.M)
        if r["status"] != 0 or not m:
            sys.exit("counting build of %s failed: %s" % (w, r["err"]))
        calls = int(m.group(1))
        log("%s %s: %d calls" % (w, " ".join(args), calls))
        rows = measure_workload(w, args, calls, fnt, uft, runs, notes)
        wl = {"name": w, "args": args, "calls": calls, "events": 2 * calls,
              "count_command": "bench/out/%s-count %s" % (w, " ".join(args)), "rows": rows}
        # check the counts against the tracers
        for row in rows:
            if row.get("status") != "ok" or row["kind"] != "trace":
                continue
            # ring keeps only the last 4M per thread, by design; the filter modes record less
            if row["method"] == "fntrace-ring" or row["method"] in FILTER_MODES:
                continue
            if row["method"] in LIBCALL_METHODS:
                libcall_row(w, row, rows, calls, uft, notes)
                continue
            if row["method"].startswith(("fntrace", "baseline", "prefault")):
                got, err = fntrace_calls(row["trace_dir"])
                row["traced_calls"] = got
                if got != row.get("own_calls", calls):
                    notes.append("%s %s: fntrace report counts %s calls, the counting build %d %s" % (
                        w, row["method"], got, calls, err or ""))
            elif row["method"] == "uftrace":
                got, t, rr = uftrace_calls(uft["exe"], row["trace_dir"])
                row["traced_calls"] = got
                if got != calls:
                    notes.append("%s uftrace: uftrace report counts %s calls, the counting build %d" % (w, got, calls))
                if got is not None:
                    R["decode"].append({"workload": w, "mode": "uftrace", "what": "uftrace report", "events": 2 * calls,
                                        "status": "ok", "runs": 1, "wall_s": t, "events_per_s": 2 * calls / t,
                                        "rss_kb": rr["rss_kb"], "command": "uftrace report -d DIR --no-pager"})
        # decode the fntrace traces
        for row in rows:
            if row.get("status") == "ok" and row["method"].startswith("fntrace") and row["method"] not in FILTER_MODES \
                    and row["method"] not in LIBCALL_METHODS and row["method"] != "fntrace-no-drain":
                log("  decoding %s %s" % (w, row["method"]))
                R["decode"] += measure_decode(w, row["method"][len("fntrace-"):], row["trace_dir"],
                                              row.get("own_calls", calls), exports, dec_runs)
        if not a.keep:
            for row in rows:
                if row.get("trace_dir"):
                    rmtree(row["trace_dir"])
        R["workloads"].append(wl)
    # uftrace report rows last in the decode table
    R["decode"].sort(key=lambda d: d["mode"] == "uftrace")
    export_notes(R["decode"], notes)

    log("in-program API cost")
    R["api_runs"] = 1 if a.quick else 5
    R["api"] = measure_api(fnt, R["api_runs"])
    log("start-up cost")
    R["startup"] = measure_startup(fnt, uft, 10 if a.quick else 40)
    log("hook cost, best of repetitions")
    R["hookrep"] = measure_hookrep(fnt, 3 if a.quick else 7)
    log("hand-made vfork gap")
    R["clone_gap"] = measure_clone_gap(2000 if a.quick else 20000)
    if a.big:
        if ok:
            R["big"] = measure_big(fnt, runs, notes)
        else:
            notes.append("--big: fntrace " + note)
    R["targets"] = evaluate_targets(R)
    R["machine"]["loadavg_end"] = os.getloadavg()
    R["elapsed_s"] = round(time.time() - t_start, 1)
    R["command"] = "python3 bench/run.py " + " ".join(sys.argv[1:])
    notes.append("harness ran %.0f s; load average at start %.2f, at end %.2f" % (
        R["elapsed_s"], R["machine"]["loadavg_start"][0], R["machine"]["loadavg_end"][0]))
    print_results(R)
    with open(jpath, "w") as fp:
        json.dump(R, fp, indent=1)
        fp.write("\n")
    log("wrote " + os.path.relpath(jpath, ROOT))


if __name__ == "__main__":
    main()
