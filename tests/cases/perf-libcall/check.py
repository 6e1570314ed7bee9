import os, re, shutil, subprocess

# perf samples the traced program (perf record -k mono --call-graph dwarf
# around fntrace record, library calls traced): its time goes into memset,
# which the dynamic linker binds to one of libc's variants (an IFUNC:
# __memset_avx2_unaligned_erms, __memset_evex_unaligned_erms...), and into
# fputs, which libc defines as _IO_fputs, its weak alias fputs, calling
# strlen and write.  perf alone ends each such chain at fnt_traced_return.
# `fntrace perf-inject` must put fill/say and main back under them: by the
# function each slot led to, which the trace records (its name would not
# do), and with perf's unwinder going on through libc's own frames to
# _start, which it only does when libc's mappings are the program's own
# (the runtime maps no file; the tool's fork of the program is marked as
# one that execs).
#
# Not matched: a sample taken inside fntrace's hooks, or in a call whose
# return address has two candidates in its caller (main's two mallocs).
# About 0.3 s of calls 16 MB and 4 MB long: expected none or a few.

START = ["_start", "__libc_start_main_impl (inlined)", "__libc_start_call_main"]
MMAP = re.compile(r"^\s*prog\s.*PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ 0 .*\]: \S+ (\S+)$", re.M)
FOLDED = re.compile(r"^(\d+) (.+)$")
ENTRY = re.compile(r"^\s+[\d.]+%\s+(\S+)\s+\[(.)\]\s+(\S+)")


def perf_usable(ctx, perf):
    if not perf:
        raise Skip("perf is not installed (apt-get install linux-perf)")
    p = subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", "--call-graph", "dwarf",
                        "-o", os.path.join(ctx.work, "probe.data"), "--", "true"],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    if p.returncode:
        raise Skip("'perf record' fails here: %s" % (p.stderr.strip().splitlines() or ["status %d" % p.returncode])[-1])


def chains(ctx, perf, data):
    """[(count, [frames outermost first])] of prog's samples"""
    p = subprocess.run([perf, "report", "--stdio", "--no-children", "-i", data, "--comm", "prog",
                        "-g", "folded,0,caller,count"], capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    return [(int(m.group(1)), m.group(2).split(";")) for m in
            (FOLDED.match(l) for l in p.stdout.split("\n")) if m], p.stdout


def check(ctx):
    perf = shutil.which("perf")
    perf_usable(ctx, perf)
    d = os.path.join(ctx.work, "trace.data")
    data = os.path.join(ctx.work, "perf.data")
    p = subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", "--call-graph", "dwarf", "-o", data,
                        "--", ctx.fntrace, "record", "-d", d, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120,
                       env=dict(os.environ, FNTRACE_LIBCALL="1"))
    assert p.returncode == 0 and re.search(r"^done \d+$", p.stdout, re.M), (p.stdout, p.stderr)

    # the runtime maps no ELF file of its own (it reads the parts it parses):
    # perf saw each shared object of the program at one load address, for
    # a second one lower down (the runtime's copy of libc.so.6) would be
    # taken for libc's, whose CFI perf's unwinder then does not find
    mmaps = subprocess.run([perf, "script", "-i", data, "--show-mmap-events"], capture_output=True, text=True,
                           cwd=ctx.work, timeout=120).stdout
    starts = {}
    for start, path in MMAP.findall(mmaps):
        if ".so" in path:
            starts.setdefault(path, set()).add(start)
    assert any("libc.so" in p for p in starts) and all(len(s) == 1 for s in starts.values()), starts

    # the trace itself: 300 calls of each through the library
    counts = ctx.counts()
    assert counts.get("fill") == 300 and counts.get("say") == 300 and counts.get("memset") == 301 and \
        counts.get("fputs") == 300, counts

    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", d, "-i", data], capture_output=True, text=True,
                       cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(ctx.work, "perf-inject.err"), "w") as f:
        f.write(p.stderr)
    m = re.search(r"^fntrace: perf-inject: wrote '.*': (\d+) samples read, (\d+) frames rewritten, "
                  r"(\d+) of (\d+) samples with a swapped frame not matched$", p.stderr, re.M)
    assert m, p.stderr
    read, rewritten, unmatched, swapped = (int(x) for x in m.groups())
    assert swapped >= 200 and rewritten >= swapped - unmatched and unmatched <= max(3, swapped // 100), p.stderr

    after, text = chains(ctx, perf, data + ".real")
    with open(os.path.join(ctx.work, "perf-report.txt"), "w") as f:
        f.write(text)
    # samples taken inside fntrace's own code (the return trampoline and the
    # hooks it calls) stay as they were (doc/perf-script.md): perf's walk
    # from there stops at the trampoline, the outermost frame of their
    # chain, which perf names "fnt_return_trampoline" or, depending on the
    # library's layout, "fnt_return_trampoline (inlined)".  Of the others,
    # those still with a trampoline frame are the ones perf-inject could
    # not match.
    hooks = [c for n, c in after if c[0].split(" ")[0] == "fnt_return_trampoline"]
    left = sum(n for n, c in after if c[0].split(" ")[0] != "fnt_return_trampoline" and
               any(f.split(" ")[0] in ("fnt_traced_return", "fnt_return_trampoline") for f in c))
    assert left <= unmatched, (left, unmatched, hooks)
    seen = {"fill": 0, "say": 0, "main": 0}
    full = 0
    for n, chain in after:
        # the frame under which the library's own frames start
        lib = [i for i, f in enumerate(chain) if re.match(r"^__memset_\w+$", f) or "fputs" in f]
        if not lib or "fnt_traced_return" in chain:
            continue
        i = lib[0]
        func = "fill" if "memset" in chain[i] else "say"
        if func == "fill" and chain[i - 1] == "main":
            func = "main"       # main's own memset of the line, once
        # the program's frames exactly; above main, libc's start-up frames,
        # as far as perf's unwinder went (it may stop early on a sample)
        mine = ["main"] if func == "main" else ["main", func]
        assert chain[i - len(mine):i] == mine, chain
        assert chain[:i - len(mine)] == START[len(START) - (i - len(mine)):], chain
        seen[func] += n
        full += n if chain[0] == "_start" else 0
    total = {"fill": sum(n for n, c in after if any(re.match(r"^__memset_\w+$", f) for f in c)),
             "say": sum(n for n, c in after if any("fputs" in f for f in c))}
    assert seen["fill"] >= 100 and seen["say"] >= 10, (seen, total)
    # every sample in memset and fputs but those left as they were
    assert sum(seen.values()) + unmatched >= total["fill"] + total["say"], (seen, total, unmatched)
    # perf's unwinder went on through libc to _start: it finds libc's CFI,
    # which it did in about half the runs while the tool's mappings were
    # lent to the program (then the chains stopped in libc or skipped fill)
    assert full * 10 >= sum(seen.values()) * 9, (full, seen)
