import os, re, shutil, subprocess, sys

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
# one or two (seen: 1 in 2 of 12 runs).

CHAINS = {"leaf": ["leaf", "middle", "outer"], "middle": ["middle", "outer"], "outer": ["outer"]}
HEADER = re.compile(r"^(\S+\s*?\S*?)\s+(\d+)(?:/(\d+))?\s")
FRAME = re.compile(r"^\s*(\w+)\s*(.+) \((\S*)\)")
UNMATCHED = re.compile(r"^fntrace: perf-script: (\d+) of (\d+) samples had no matching calls in the trace$", re.M)


def samples(text):
    """(tid, [(func, module), ...] innermost first) per sample"""
    out, cur = [], None
    for line in text.split("\n"):
        if not line.strip():
            if cur:
                out.append(cur)
            cur = None
            continue
        if line.startswith("#"):
            continue
        m = HEADER.match(line)
        if m and not line[0].isspace():
            cur = (int(m.group(3) or m.group(2)), [])
            continue
        m = FRAME.match(line)
        assert m and cur is not None, ("a line stackcollapse-perf.pl would not read", line)
        cur[1].append((re.sub(r"\+0x[0-9a-f]+$", "", m.group(2)), m.group(3)))
    if cur:
        out.append(cur)
    return out


def perf_usable(ctx, perf):
    if not perf:
        raise Skip("perf is not installed (apt-get install linux-perf)")
    p = subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", "-g",
                        "-o", os.path.join(ctx.work, "probe.data"), "--", "true"],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    if p.returncode:
        raise Skip("'perf record' fails here: %s" % (p.stderr.strip().splitlines() or ["status %d" % p.returncode])[-1])


def check(ctx):
    perf = shutil.which("perf")
    perf_usable(ctx, perf)
    rounds = [("prog", [], ["-g"], {}), ("prog", ["--callsite"], ["--call-graph", "dwarf"], {}),
              ("prog-plain", ["-P", "*"], ["-g"], {"FNTRACE_LIBCALL": "1"})]
    for name, record_args, how, env in rounds:
        prog = os.path.join(ctx.work, name)
        d = os.path.join(ctx.work, "trace.data")
        data = os.path.join(ctx.work, "perf.data")
        shutil.rmtree(d, ignore_errors=True)
        p = subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", *how, "-o", data, "--",
                            ctx.fntrace, "record", "-d", d, *record_args, "--", prog],
                           capture_output=True, text=True, cwd=ctx.work, timeout=120,
                           env=dict(os.environ, **env))
        assert p.returncode == 0 and "done" in p.stdout, (name, how, p.stdout, p.stderr)
        raw = subprocess.run([perf, "script", "-i", data], capture_output=True, text=True, cwd=ctx.work,
                             timeout=120).stdout
        tids = {}
        rep = ctx.run("replay", "-d", d, "--fields", "tid", check=True).stdout
        for tid, func in re.findall(r"^\[\s*(\d+)\]\s*\|\s*(main|worker)\(\)", rep, re.M):
            tids[int(tid)] = func
        assert sorted(tids.values()) == ["main", "worker"], rep

        # what perf shows by itself: the trampoline in place of the callers
        before = [s for s in samples(raw) if s[0] in tids and s[1] and s[1][0][0] == "leaf"]
        assert before and all("fnt_traced_return" in [f for f, _ in s[1]] for s in before), (name, how, before[:3])

        p = subprocess.run([ctx.fntrace, "perf-script", "-d", d], input=raw, capture_output=True, text=True,
                           cwd=ctx.work, timeout=120)
        assert p.returncode == 0, (name, how, p.stderr)
        m = UNMATCHED.search(p.stderr)
        assert m, p.stderr
        unmatched, total = int(m.group(1)), int(m.group(2))
        assert total >= 100 and unmatched <= 2, (name, how, p.stderr)
        after = [s for s in samples(p.stdout) if s[0] in tids]
        assert len(samples(p.stdout)) == len(samples(raw)), "samples lost or added"
        left = [s for s in after if "fnt_traced_return" in [f for f, _ in s[1]]]
        assert len(left) <= unmatched, (name, how, left[:3])
        seen = {}
        for tid, frames in after:
            if not frames or frames[0][0] not in CHAINS or (tid, frames) in [(t, f) for t, f in left]:
                continue
            # the program's own frames, innermost first, up to its outermost traced call
            mine = [f for f, mod in frames if mod == prog]
            want = CHAINS[frames[0][0]] + [tids[tid]]
            assert mine[:len(want)] == want, (name, how, tid, frames)
            seen[(tids[tid], frames[0][0])] = seen.get((tids[tid], frames[0][0]), 0) + 1
        if "--callsite" in record_args:
            # the call sites themselves (not the callers' entries), and the
            # outermost calls' callers in libc, which the trace knows then
            leafs = [b for b in p.stdout.split("\n\n")
                     if re.search(r"^\s*\w+ leaf\+", b, re.M) and "fnt_traced_return" not in b]
            assert leafs and not any(re.search(r" (middle|outer|main|worker)\+0x0 ", b) for b in leafs), leafs[:2]
            assert all(re.search(r" (__libc_start_call_main|start_thread)\+0x[0-9a-f]+ \(\S*libc", b)
                       for b in leafs), [b for b in leafs if "libc" not in b][:2]
        # both threads were sampled in each function (leaf spins longest)
        for t in ("main", "worker"):
            assert seen.get((t, "leaf"), 0) >= 20 and seen.get((t, "outer"), 0) >= 3, (name, how, seen)
        with open(os.path.join(ctx.work, "perf-script-%s%s.txt" % (name, how[-1])), "w") as f:
            f.write(p.stdout)
        with open(os.path.join(ctx.work, "perf-script-%s%s.err" % (name, how[-1])), "w") as f:
            f.write(p.stderr)
        if ctx.build == "gcc-O0" and how == ["-g"] and name == "prog":
            in_speedscope(ctx, p.stdout, [t for t, f in tids.items() if f == "main"][0])


def in_speedscope(ctx, text, tid):
    """The real speedscope (1.25, from npm) imports the rewritten text: the
    main thread's samples in leaf, middle and outer, as its sandwich view
    lists their functions, are exactly those and main."""
    keep = [b for b in text.split("\n\n") if HEADER.match(b) and int(HEADER.match(b).group(3) or
            HEADER.match(b).group(2)) == tid and FRAME.match(b.split("\n")[1] if "\n" in b else "") and
            FRAME.match(b.split("\n")[1]).group(2).split("+")[0] in CHAINS]
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
