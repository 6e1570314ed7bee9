import os, re, shutil, subprocess
import perfcheck as P

# Without `record --callsite`, perf-inject finds a call's real return
# address in its caller's code. That code must be the traced build's: the
# program is rebuilt at the same path after the run (one statement more in
# middle, so that its call of leaf lies 18 bytes further in), and reading
# the new file gave return addresses that are wrong without a sign of it
# (middle+0x53 for middle+0x41, in the middle of an instruction), with a
# warning that the file was rebuilt printed and ignored.  The code is taken
# only from a file with the traced build-id, found as the names are: the
# recorded path after --prefix-map, a copy by build-id under --debug-dir,
# an unpacked archive's DIR/debug.  With none, each such frame names its
# caller's entry (what perf-inject does whenever it cannot find the call)
# and stderr says how many return addresses were not looked up, and where.

FRAME = re.compile(r"^\s+[0-9a-f]+ (\S+?)\+0x([0-9a-f]+) \((\S+)\)$")
SUMMARY = re.compile(r"^fntrace: perf-inject: wrote '.*': (\d+) samples read, (\d+) frames rewritten, "
                     r"(\d+) of (\d+) samples with a swapped frame not matched(.*)$", re.M)


def inject(ctx, d, data, out, *args):
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", d, "-i", data, "-o", out, *args], capture_output=True,
                       text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, (args, p.stderr)
    m = SUMMARY.search(p.stderr)
    assert m, p.stderr
    return m, p.stderr


def chains(perf, ctx, data):
    """the program's samples as perf script shows them: [(func, off, module)] each"""
    p = subprocess.run([perf, "script", "-i", data, "--comm", "prog"], capture_output=True, text=True,
                       cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    out = []
    for block in p.stdout.split("\n\n"):
        frames = [FRAME.match(l) for l in block.split("\n")[1:] if l.strip()]
        out.append([(m.group(1), int(m.group(2), 16), m.group(3)) if m else None for m in frames])
    return out


def build_id(path):
    p = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, timeout=60)
    m = re.search(r"Build ID: ([0-9a-f]+)", p.stdout)
    assert m, p.stdout
    return m.group(1)


def check(ctx):
    perf, why = P.usable(ctx)
    if why:
        raise Skip(why)
    work = ctx.work
    prog = os.path.join(work, "prog")
    d = os.path.join(work, "t.data")
    data = os.path.join(work, "perf.data")
    p = P.record(ctx, perf, data, d, prog)
    assert p.returncode == 0 and "done" in p.stdout, (p.stdout, p.stderr)
    ctx.run("archive", "-d", d, "-o", os.path.join(work, "t.tar"), check=True)

    good = os.path.join(work, "good.real")
    m, err = inject(ctx, d, data, good)
    assert int(m.group(2)) >= 100 and "not looked up" not in err, err
    with open(good, "rb") as f:
        good_bytes = f.read()
    want = chains(perf, ctx, good)
    exact = sum(1 for c in want for f in c if f and f[2] == prog and f[0] in ("middle", "outer") and f[1])
    assert exact >= 50, ("the traced build's calls were not found", want[:5])

    # the traced build kept aside, a new one at its path (a new file, as
    # the linker makes it: perf's build-id cache links the old one)
    traced = os.path.join(work, "traced")
    os.makedirs(traced)
    shutil.copy2(prog, os.path.join(traced, "prog"))
    shutil.copy2(os.path.join(work, "prog-new"), prog + ".tmp")
    os.rename(prog + ".tmp", prog)

    after = os.path.join(work, "after.real")
    m, err = inject(ctx, d, data, after)
    got = chains(perf, ctx, after)
    assert len(got) == len(want)
    wrong, entries = [], 0
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for fg, fw in zip(g, w):
            if fg == fw:
                continue
            # the caller's entry in place of the return address: the same
            # function, offset 0; never an address the traced build did not have
            if fg and fw and fg[0] == fw[0] and fg[2] == fw[2] and fg[1] == 0:
                entries += 1
            else:
                wrong.append((fw, fg))
    assert not wrong, ("return addresses read from the rebuilt file", len(wrong), wrong[:4])
    assert entries >= 50, entries
    m2 = re.search(r"^fntrace: perf-inject: (\d+) return addresses were not looked up in the code of '%s': "
                   % re.escape(prog), err, re.M)
    assert m2 and int(m2.group(1)) >= entries and "return addresses not looked up" in m.group(5), err
    assert "rebuilt since" in err, err

    # the traced build, where the names would be found too
    for how, args, dd in (("--prefix-map", ["--prefix-map", "%s=%s" % (work, traced)], d),
                          ("--debug-dir", ["--debug-dir", os.path.join(work, "dbg")], d),
                          ("archive", [], os.path.join(work, "elsewhere", "t.data"))):
        if how == "--debug-dir":
            bid = build_id(os.path.join(traced, "prog"))
            os.makedirs(os.path.join(work, "dbg", ".build-id", bid[:2]))
            shutil.copy2(os.path.join(traced, "prog"), os.path.join(work, "dbg", ".build-id", bid[:2], bid[2:]))
        if how == "archive":
            os.makedirs(os.path.join(work, "elsewhere"))
            subprocess.run(["tar", "xf", os.path.join(work, "t.tar")], cwd=os.path.join(work, "elsewhere"),
                           check=True, timeout=60)
        out = os.path.join(work, "x.real")
        m, err = inject(ctx, dd, data, out, *args)
        with open(out, "rb") as f:
            assert f.read() == good_bytes, (how, "differs from the file injected before the rebuild", err)
        assert "not looked up" not in err, (how, err)
