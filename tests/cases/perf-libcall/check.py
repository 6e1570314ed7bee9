import os, re, struct, subprocess
import perfcheck as P

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
# one that execs, so perf lends it none of the tool's mappings).
#
# perf writes each CPU's buffer in turn: when the program execs on another
# CPU than the one the tool forked it on, its exec may come before its fork
# in the file (about one run in five here).  perf pairs them by time; so
# must perf-inject.  The file as perf wrote it is checked, then a copy with
# the exec moved before the fork, as perf writes it in those runs.
#
# Not matched: a sample taken inside fntrace's hooks, or in a call whose
# return address has two candidates in its caller (main's two mallocs).
# About 0.3 s of calls 16 MB and 4 MB long: expected none or a few.

START = ["_start", "__libc_start_main_impl (inlined)", "__libc_start_call_main"]
MMAP = re.compile(r"^\s*prog\s.*PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ 0 .*\]: \S+ (\S+)$", re.M)
FOLDED = re.compile(r"^(\d+) (.+)$")
ENTRY = re.compile(r"^\s+[\d.]+%\s+(\S+)\s+\[(.)\]\s+(\S+)")
TASK = re.compile(r"^\s*\d+\s+\d+\s+-?\d+\s+\|\s*(\S+)$")
TASK_MAP = re.compile(r"^\s+([0-9a-f]+)-[0-9a-f]+ \S+ ([0-9a-f]+) \d+ (/\S+)$")
FORK, COMM, FINISHED_ROUND, COMM_EXEC = 7, 3, 68, 1 << 13


def chains(ctx, perf, data):
    """[(count, [frames outermost first])] of prog's samples"""
    p = subprocess.run([perf, "report", "--stdio", "--no-children", "-i", data, "--comm", "prog",
                        "-g", "folded,0,caller,count"], capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    return [(int(m.group(1)), m.group(2).split(";")) for m in
            (FOLDED.match(l) for l in p.stdout.split("\n")) if m], p.stdout


def perf_maps(ctx, perf, data, comm):
    """{(start, path)} of the files perf holds mapped at offset 0 in comm's
    process once it has read data (the mappings its unwinder uses)"""
    p = subprocess.run([perf, "report", "-i", data, "--tasks", "--mmaps"], capture_output=True, text=True,
                       cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    maps, inside = set(), False
    for l in p.stdout.split("\n"):
        m = TASK.match(l)
        if m:
            inside = m.group(1) == comm
            continue
        m = TASK_MAP.match(l)
        if inside and m and int(m.group(2), 16) == 0 and m.group(3) != "//anon":
            maps.add(("0x" + m.group(1), m.group(3)))
    return maps


def exec_first(data, out):
    """a copy of perf.data with the program's exec (its COMM record) moved
    before its fork, and the rounds between them made one (their
    FINISHED_ROUND records moved after the exec's old place), so that perf
    still orders every record by time: as perf writes it when it drained the
    program's CPU's buffer first"""
    with open(data, "rb") as f:
        b = f.read()
    off, size = struct.unpack_from("<QQ", b, 40)
    recs, pos = [], off
    while pos + 8 <= off + size:
        typ, misc, n = struct.unpack_from("<IHH", b, pos)
        recs.append((typ, misc, b[pos:pos + n]))
        pos += n
    c = [i for i, (t, m, r) in enumerate(recs) if t == COMM and m & COMM_EXEC and r[16:21] == b"prog\0"]
    assert len(c) == 1, c
    pid = struct.unpack_from("<I", recs[c[0]][2], 8)[0]
    f = [i for i, (t, m, r) in enumerate(recs) if t == FORK and struct.unpack_from("<I", r, 8)[0] == pid]
    assert len(f) == 1, f
    c, f = c[0], f[0]
    if c > f:
        between = recs[f:c]
        recs = recs[:f] + [recs[c]] + [r for r in between if r[0] != FINISHED_ROUND] + \
            [r for r in between if r[0] == FINISHED_ROUND] + recs[c + 1:]
    with open(out, "wb") as o:
        o.write(b[:off] + b"".join(r for t, m, r in recs) + b[off + size:])


def check(ctx):
    perf, why = P.usable(ctx, ("--call-graph", "dwarf"))
    if why:
        raise Skip(why)
    d = os.path.join(ctx.work, "trace.data")
    data = os.path.join(ctx.work, "perf.data")
    p = P.record(ctx, perf, data, d, os.path.join(ctx.work, "prog"), how=("--call-graph", "dwarf"),
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

    own = {(start, path) for start, path in MMAP.findall(mmaps)}
    injected(ctx, perf, d, data, own, "perf")
    exec_first(data, os.path.join(ctx.work, "exec-first.data"))
    injected(ctx, perf, d, os.path.join(ctx.work, "exec-first.data"), own, "exec-first")
    for f in ("exec-first.data", "exec-first.data.real"):
        os.remove(os.path.join(ctx.work, f))        # (40 MB; kept when a check fails)


def injected(ctx, perf, d, data, own, name):
    """perf-inject's copy of data: perf's mappings of the program, its
    chains in memset and fputs; own: {(start, path)} the program mapped"""
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", d, "-i", data], capture_output=True, text=True,
                       cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(ctx.work, name + "-inject.err"), "w") as f:
        f.write(p.stderr)
    m = re.search(r"^fntrace: perf-inject: wrote '.*': (\d+) samples read, (\d+) frames rewritten, "
                  r"(\d+) of (\d+) samples with a swapped frame not matched$", p.stderr, re.M)
    assert m, p.stderr
    read, rewritten, unmatched, swapped = (int(x) for x in m.groups())
    assert swapped >= 200 and rewritten >= swapped - unmatched and unmatched <= max(3, swapped // 100), p.stderr

    # perf holds mapped in the program only what the program mapped: none
    # of the tool's files, and libc where the program has it
    view = perf_maps(ctx, perf, data + ".real", "prog")
    assert any("libc.so" in path for start, path in view), (name, view)
    lent = view - own
    assert not lent, (name, sorted(lent))

    after, text = chains(ctx, perf, data + ".real")
    with open(os.path.join(ctx.work, name + "-report.txt"), "w") as f:
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
    full = early = 0
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
        # as far as perf's unwinder went (it may stop early on a sample).
        # It stops inside the program's frames when the sample is on
        # fputs's last instructions: its CFI there still has %rbp in the
        # slot just popped, below the stack pointer, out of perf's copy of
        # the stack, and say at -O0 needs %rbp to find main (1 sample in
        # 116 runs here).  A chain that stops at say still has say right.
        mine = ["main"] if func == "main" else ["main", func]
        want = START + mine
        assert 0 < i and chain[:i] == want[len(want) - i:], chain
        early += n if i < len(mine) else 0
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
    assert early <= 3, (early, seen)
