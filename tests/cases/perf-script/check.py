import os, re, shutil, struct, subprocess, sys
import perfcheck as P
from perfcheck import FRAME, HEADER, own_code, pc_own, samples, swapped

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import browser  # noqa: E402

# perf samples the traced program (perf record -k mono around fntrace
# record), once walking frame pointers (-g) and once unwinding with DWARF
# (--call-graph dwarf, recorded with --callsite: the frames put back are
# then the call sites); and the same program built without instrumentation,
# its functions patched at start (record -P '*'), with library calls traced
# too, walking frame pointers.  perf alone shows fnt_traced_return in place of
# every traced caller (frame pointers) or ends the chain there (DWARF);
# `fntrace perf-script` puts the real callers back from the trace, in the
# text perf script writes. FlameGraph's stackcollapse-perf.pl and speedscope
# 1.25's importer read a sample's header and frame lines with the patterns
# used below to fold the stacks; the gcc -O0 build also loads the main
# thread's samples into the real speedscope.
#
# Unmatched samples: a sample taken while the program is inside fntrace's
# own hooks (the entry hook of a traced call, the return trampoline), or in
# a library function that keeps no frame pointer (a walk by frame pointers
# goes from it straight to a swapped return address: printf's strlen in
# main), has no frame of a traced call inside the first swapped return
# address to check the trace's calls against, so it is written as it was
# and counted.  The program makes eight traced calls and one printf in
# about 0.3 s, so that is expected to happen to no sample, and at most to
# one or two (seen: 1 in 2 of 12 runs).  A sample whose pc is inside the
# trampoline, where DWARF unwinding stops at once, has no swapped frame at
# all: it stays and is not one of the samples to match (seen once in make
# check, when the test still counted it as one).

CHAINS = {"leaf": ["leaf", "middle", "outer"], "middle": ["middle", "outer"], "outer": ["outer"]}
UNMATCHED = re.compile(r"^fntrace: perf-script: (\d+) of (\d+) samples had no matching calls in the trace$", re.M)


def in_hooks(frames):
    """a sample taken inside fntrace's own code: a frame of libfntrace.so
    before (inside) the first trampoline frame"""
    for f, mod, _ in frames:
        if f in TRAMP:
            return False
        if mod.endswith("libfntrace.so"):
            return True
    return False


def check(ctx):
    inject_refuses(ctx)
    perf, why = P.usable(ctx)
    if why:
        raise Skip(why)
    rounds = [("prog", [], ["-g"], {}), ("prog", ["--callsite"], ["--call-graph", "dwarf"], {}),
              ("prog", [], ["--call-graph", "dwarf"], {}),
              ("prog-plain", ["-P", "*"], ["-g"], {"FNTRACE_LIBCALL": "1"})]
    for name, record_args, how, env in rounds:
        prog = os.path.join(ctx.work, name)
        d = os.path.join(ctx.work, "trace.data")
        data = os.path.join(ctx.work, "perf.data")
        shutil.rmtree(d, ignore_errors=True)
        p = P.record(ctx, perf, data, d, prog, how=how, args=record_args, env=dict(os.environ, **env))
        assert p.returncode == 0 and "done" in p.stdout, (name, how, p.stdout, p.stderr)
        raw = subprocess.run([perf, "script", "-i", data], capture_output=True, text=True, cwd=ctx.work,
                             timeout=120).stdout
        tids = {}
        rep = ctx.run("replay", "-d", d, "--fields", "tid", check=True).stdout
        for tid, func in re.findall(r"^\[\s*(\d+)\]\s*\|\s*(main|worker)\(\)", rep, re.M):
            tids[int(tid)] = func
        assert sorted(tids.values()) == ["main", "worker"], rep

        # what perf shows by itself: the trampoline in place of the callers
        # (the return address is the first byte of fnt_return_trampoline,
        # inside fnt_traced_return too: perf names it by either symbol,
        # whichever its lookup meets first, which the library's layout decides)
        before = [s for s in samples(raw) if s[0] in tids and s[1] and s[1][0][0] == "leaf"]
        assert before and all(any(f in TRAMP for f, *_ in s[1]) for s in before), (name, how, before[:3])

        p = subprocess.run([ctx.fntrace, "perf-script", "-d", d], input=raw, capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        assert p.returncode == 0, (name, how, p.stderr)
        m = UNMATCHED.search(p.stderr)
        assert m, p.stderr
        unmatched, total = int(m.group(1)), int(m.group(2))
        # samples whose pc is fntrace's own code with swapped frames above
        # it stay unmatched by design (doc/perf-script.md); on a loaded
        # machine the return trampoline was caught so in 1 run of 5 (once 3
        # times in a run): the ones left so are counted apart, and at most 2
        # others may stay
        own = len([s for s in samples(p.stdout) if s[0] in tids and own_code(s[1])])
        # (a few samples at a thread's first or last instructions: up to 0.1 %)
        assert total >= 100 and unmatched <= 2 + own + total // 1000, (name, how, own, p.stderr)
        after = [s for s in samples(p.stdout) if s[0] in tids]
        assert len(samples(p.stdout)) == len(samples(raw)), "samples lost or added"
        # (a sample taken inside fntrace's own code, the return trampoline's
        # hooks, stays as it was: doc/perf-script.md)
        left = [s for s in after if any(swapped(fr) for fr in s[1]) and not in_hooks(s[1])]
        assert len(left) <= unmatched, (name, how, left[:3])
        seen = {}
        for tid, frames in after:
            if not frames or frames[0][0] not in CHAINS or (tid, frames) in [(t, f) for t, f in left]:
                continue
            # the program's own frames, innermost first, up to its outermost traced call
            mine = [f for f, mod, _ in frames if mod == prog]
            want = CHAINS[frames[0][0]] + [tids[tid]]
            assert mine[:len(want)] == want, (name, how, tid, frames)
            seen[(tids[tid], frames[0][0])] = seen.get((tids[tid], frames[0][0]), 0) + 1
        if "--callsite" in record_args:
            # the call sites themselves (not the callers' entries), and the
            # outermost calls' callers in libc, which the trace knows then
            leafs = [b for b in p.stdout.split("\n\n")
                     if re.search(r"^\s*\w+ leaf\+", b, re.M) and not any(t in b for t in TRAMP)]
            assert leafs and not any(re.search(r" (middle|outer|main|worker)\+0x0 ", b) for b in leafs), leafs[:2]
            assert all(re.search(r" (__libc_start_call_main|start_thread)\+0x[0-9a-f]+ \(\S*libc", b)
                       for b in leafs), [b for b in leafs if "libc" not in b][:2]
        # both threads were sampled in each function (leaf spins longest)
        for t in ("main", "worker"):
            assert seen.get((t, "leaf"), 0) >= 20 and seen.get((t, "outer"), 0) >= 3, (name, how, seen)
        with open(os.path.join(ctx.work, "perf-script-%s%s%s.txt" % (name, how[-1], "".join(record_args[:1]))), "w") as f:
            f.write(p.stdout)
        with open(os.path.join(ctx.work, "perf-script-%s%s%s.err" % (name, how[-1], "".join(record_args[:1]))), "w") as f:
            f.write(p.stderr)
        if ctx.build == "gcc-O0" and how == ["-g"] and name == "prog":
            in_speedscope(ctx, p.stdout, [t for t, f in tids.items() if f == "main"][0])
        inject(ctx, perf, name, how, record_args, data, d, tids,
               len([s for s in samples(raw) if s[0] in tids and pc_own(s[1])]))


# `perf report -g folded,0,caller,count`: each entry's chains, "N a;b;c",
# outermost first, under its "  47.91%  prog  [.] leaf" line
ENTRY = re.compile(r"^\s+[\d.]+%\s+(\S+)\s+\[(.)\]\s+(\S+)\s*$")
FOLDED = re.compile(r"^(\d+) (.+)$")
TRAMP = ("fnt_traced_return", "fnt_return_trampoline")


def report(ctx, perf, data, comm):
    """{symbol: [(count, [frames outermost first]), ...]} of comm's samples in its own module"""
    p = subprocess.run([perf, "report", "--stdio", "--no-children", "-i", data, "--comm", comm,
                        "-g", "folded,0,caller,count"], capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    out, cur = {}, None
    for line in p.stdout.split("\n"):
        m = ENTRY.match(line)
        if m:
            # the program's own functions (not a kernel function it was in)
            cur = out.setdefault(m.group(3), []) if m.group(1) == comm and m.group(2) == "." else None
            continue
        m = FOLDED.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1)), m.group(2).split(";")))
    return out, p.stdout


def call_lines(ctx):
    """{caller: line of its call}, from prog.c"""
    lines, fn = {}, None
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")) as f:
        for no, line in enumerate(f, 1):
            m = re.match(r"^(?:__attribute__.*\s)?(?:static )?\S+ \*?(\w+)\((?:void|void \*arg)\)$", line.strip())
            if m:
                fn = m.group(1)
            m = re.match(r"^\s*(outer|middle|leaf)\(\);", line)
            if m and fn:
                lines[fn] = no
    assert set(lines) == {"main", "worker", "outer", "middle"}, lines
    return lines


def inject(ctx, perf, name, how, record_args, data, d, tids, own):
    """`fntrace perf-inject` rewrites perf.data itself: perf report shows the
    real chains (leaf middle outer main/worker, and with DWARF and the call
    sites recorded on through libc's frames to _start and clone3), at the
    lines of the calls; perf annotate is unchanged."""
    before, _ = report(ctx, perf, data, name)
    # what perf shows by itself: the trampoline in every chain of leaf
    assert before.get("leaf") and all(any(f in TRAMP for f in c) for _, c in before["leaf"]), \
        (name, how, before.get("leaf"))
    out = data + ".real"
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", d, "-i", data], capture_output=True, text=True,
                       cwd=ctx.work, timeout=120)
    assert p.returncode == 0, (name, how, p.stderr)
    m = re.search(r"^fntrace: perf-inject: wrote '(.*)': (\d+) samples read, (\d+) frames rewritten, "
                  r"(\d+) of (\d+) samples with a swapped frame not matched$", p.stderr, re.M)
    assert m and m.group(1) == out and os.path.exists(out), p.stderr
    read, rewritten, unmatched, swapped = (int(x) for x in m.groups()[1:])
    # (the samples whose pc is fntrace's own code, own, are left and
    # counted here too, also where perf's DWARF unwinding stopped at the
    # trampoline and perf-script saw no swapped frame: perf-inject reads
    # the swapped return addresses in the sample's copy of the stack)
    assert swapped >= 100 and rewritten >= 2 * swapped and unmatched <= 2 + own, (name, how, own, p.stderr)
    assert os.path.getsize(out) == os.path.getsize(data), "the layout changed"
    after, text = report(ctx, perf, out, name)
    # (not the samples taken in the trampoline's own code, which perf
    # report lists under libfntrace.so, not the program)
    left = sum(n for sym, chains in after.items() if sym not in TRAMP
               for n, c in chains if any(f.split(" ")[0] in TRAMP for f in c))
    assert left <= unmatched, (name, how, left, text)
    seen = {}
    for sym in ("leaf", "middle", "outer"):
        for n, chain in after.get(sym, []):
            if any(f in TRAMP for f in chain):
                continue
            # from the thread's outermost traced call in: exactly the program's calls
            top = [i for i, f in enumerate(chain) if f in ("main", "worker")]
            assert top, (name, how, chain)
            mine = chain[top[-1]:]
            want = [mine[0]] + {"leaf": ["outer", "middle", "leaf"], "middle": ["outer", "middle"],
                                "outer": ["outer"]}[sym]
            assert mine == want, (name, how, chain)
            if "dwarf" in how and "--callsite" in record_args:
                # perf's unwinder went on through the real frames, out of the
                # program (at times it stops in libc, as it does without fntrace)
                outside = chain[:top[-1]]
                assert outside and any(outside == full[-len(outside):] for full in (
                    ["clone3", "start_thread"],
                    ["_start", "__libc_start_main_impl (inlined)", "__libc_start_call_main"])), (name, how, chain)
            else:
                assert top[-1] == 0, (name, how, chain)
            seen[(mine[0], sym)] = seen.get((mine[0], sym), 0) + n
    for t in ("main", "worker"):
        assert seen.get((t, "leaf"), 0) >= 20 and seen.get((t, "outer"), 0) >= 3, (name, how, seen)
    # perf annotate reads the same samples (only return addresses changed)
    ann = [subprocess.run([perf, "annotate", "--stdio", "-i", f, "-s", "leaf"], capture_output=True, text=True,
                          cwd=ctx.work, timeout=120) for f in (data, out)]
    assert ann[1].returncode == 0 and re.search(r"<leaf>:", ann[1].stdout), ann[1].stderr
    assert ann[0].stdout == ann[1].stdout, "perf annotate differs"
    with open(os.path.join(ctx.work, "perf-report-%s%s%s.txt" % (name, how[-1], "".join(record_args[:1]))),
              "w") as f:
        f.write(text)
    with open(os.path.join(ctx.work, "perf-inject-%s%s%s.err" % (name, how[-1], "".join(record_args[:1]))),
              "w") as f:
        f.write(p.stderr)
    if ctx.build.endswith("-O0"):
        # the return addresses are the real ones (the call sites, recorded or
        # found in the caller's code), so perf names each caller's line of the
        # call: unwinding, by the call before the return address; in a chain of
        # frame pointers by the return address itself (as for any program),
        # which here is the next line
        inject_err = p.stderr
        # (-S leaf alone: only the program has a leaf; perf report's --comm
        # filter found no sample at all in one loaded run, where perf
        # annotate of the same file read them)
        p = subprocess.run([perf, "report", "--stdio", "--no-children", "-i", out, "-S", "leaf",
                            "-g", "folded,0,caller,address,count"], capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        chains = [c.split(";") for c in re.findall(r"^\d+ (.+)$", p.stdout, re.M)]
        if not chains and os.path.basename(os.path.dirname(ctx.fntrace)) == "build-san":
            # With the ASan build of fntrace (make check's second pass; the
            # program is the same), this report printed no entry at all in
            # two loaded runs, the same file's report without lines having
            # read leaf's chains above: perf 6.1's addr2line gave up on an
            # anonymous mapping from record's own samples (DWARF unwinding
            # through ASan's fake stack frames; "addr2line //anon: could not
            # read first record", or nothing).  The lines are checked in
            # the first pass, with the plain build
            return
        lines = call_lines(ctx)
        assert len(chains) >= 2, (name, how, record_args, p.stdout, p.stderr, inject_err)
        for chain in chains:
            if any(f.startswith(TRAMP) for f in chain):
                continue
            mine = [f for f in chain if f.split(" ")[0] in lines][-3:]
            want = ["%s prog.c:%d" % (f, lines[f] + ("dwarf" not in how))
                    for f in (mine[0].split(" ")[0], "outer", "middle")]
            assert mine == want, (name, how, chain, want)


def perf_data(records, attr_size=136, pipe=False, byte_order="<"):
    """a perf.data of one software event (ip, tid, time, period, callchain)"""
    attr = struct.pack("<IIQQQQQ", 1, attr_size - 16, 0, 4000, 0x127, 0, 1 << 18).ljust(attr_size - 16, b"\0")
    attr += struct.pack("<QQ", 0, 0)
    data = b"".join(records)
    head = struct.pack("<8sQQQQQQQQ", b"PERFILE2" if byte_order == "<" else b"2ELIFREP", 16 if pipe else 104,
                       attr_size, 104, len(attr), 104 + len(attr), len(data), 0, 0) + b"\0" * 32
    return head + attr + data


def sample(tid, chain):
    body = struct.pack("<QIIQQQ", 0x401000, tid, tid, 5, 1, len(chain)) + b"".join(struct.pack("<Q", a) for a in chain)
    return struct.pack("<IHH", 9, 2, 8 + len(body)) + body


def inject_refuses(ctx):
    """a perf.data it does not read whole: one line naming the file, status 1,
    nothing written (the trace is not even opened)"""
    good = perf_data([sample(7, [(1 << 64) - 512, 0x401000])])
    cases = [("torn.data", good[:-5], "truncated or corrupt: a section of the header ends past the end of the file"),
             ("pipe.data", perf_data([], pipe=True), "a pipe-mode perf.data ('perf record -o -'): not handled "
              "(record to a file)"),
             ("zstd.data", perf_data([struct.pack("<IHH", 81, 0, 16) + b"\0" * 8]),
              "compressed records ('perf record -z'): not handled (record without -z)"),
             ("swapped.data", perf_data([], byte_order=">"), "written in the other byte order: not handled"),
             ("lying.data", perf_data([struct.pack("<IHHQIIQQQ", 9, 2, 48, 1, 7, 7, 5, 1, 1 << 40)]),
              "a sample's callchain at offset 240 runs past its record"),
             ("short.data", perf_data([struct.pack("<IHH", 9, 0, 4)]),
              "torn or corrupt record at offset 240 (type 9, 4 bytes)"),
             ("text.data", b"# perf script output\n", "not a perf.data file")]
    for fname, blob, why in cases:
        path = os.path.join(ctx.work, fname)
        with open(path, "wb") as f:
            f.write(blob)
        p = subprocess.run([ctx.fntrace, "perf-inject", "-d", "no-such-trace", "-i", path], capture_output=True,
                           text=True, cwd=ctx.work, timeout=60)
        assert p.returncode == 1 and p.stderr == "fntrace: perf-inject: %s: %s\n" % (path, why), (fname, p.stderr)
        assert not os.path.exists(path + ".real"), fname
    # a good file reaches the trace, which is missing here
    path = os.path.join(ctx.work, "good.data")
    with open(path, "wb") as f:
        f.write(good)
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", "no-such-trace", "-i", path], capture_output=True,
                       text=True, cwd=ctx.work, timeout=60)
    assert p.returncode == 1 and "no-such-trace" in p.stderr and not os.path.exists(path + ".real"), p.stderr
    p = subprocess.run([ctx.fntrace, "perf-inject", "-i", path, "-o", path], capture_output=True, text=True,
                       cwd=ctx.work, timeout=60)
    assert p.returncode == 2 and "is the input" in p.stderr, p.stderr


def in_speedscope(ctx, text, tid):
    """The real speedscope (1.25, from npm) imports the rewritten text: the
    main thread's samples in leaf, middle and outer, as its sandwich view
    lists their functions, are exactly those and main."""
    keep = [b for b in text.split("\n\n") if HEADER.match(b) and int(HEADER.match(b).group(3) or
            HEADER.match(b).group(2)) == tid and FRAME.match(b.split("\n")[1] if "\n" in b else "") and
            FRAME.match(b.split("\n")[1]).group(2).split("+")[0] in CHAINS and
            not any(m and m.group(2).split("+")[0] in TRAMP for m in map(FRAME.match, b.split("\n")[1:]))]
    # (a sample left unmatched, which the counts above allow, keeps the
    # trampoline in its chain: under load one did, and speedscope listed
    # fnt_traced_return among the main thread's functions)
    assert len(keep) >= 20, len(keep)
    path = os.path.join(ctx.work, "main-thread.perf")
    with open(path, "w") as f:
        f.write("\n\n".join(keep) + "\n\n")
    rel = browser.speedscope_dir(ctx)
    d = browser.open_browser(ctx.case) if rel else None
    if d is None:
        return
    srv, ui = browser.serve(ctx.work), browser.serve(rel)
    try:
        d.get("http://127.0.0.1:%d/index.html#profileURL=http://127.0.0.1:%d/%s" % (
            ui.server_address[1], srv.server_address[1], os.path.basename(path)))
        text = browser.page_text(d, ["tid: %d" % tid])
        assert "tid: %d" % tid in text and "rror" not in text, (text, d.get_log("browser"))
        d.find_element("css selector", "body").send_keys("3")
        text = browser.page_text(d, ["Symbol Name", "leaf", "middle", "outer", "main"])
        browser.screenshot(d, ctx, "sandwich")
        table = text.split("Symbol Name", 1)[-1].split("\n")
        shown = {l.strip() for l in table if l.strip() and not l.strip()[0].isdigit()}
        assert shown == {"leaf", "middle", "outer", "main"}, (shown, text)
        assert browser.console_errors(d) == [], browser.console_errors(d)
    finally:
        d.quit()
        srv.shutdown()
        ui.shutdown()
