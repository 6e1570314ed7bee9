"""Damaged traces: cut at several places, overwritten with random bytes.
Every view must still work on what is left (or fail with one 'fntrace: '
line naming the file), never crash or hang; a truncated trace shows exactly
the calls before the cut and says what was lost.  A mutated file that makes
fntrace crash is kept as WORK/crash-<seed>.fnt for reproduction."""
import glob
import os
import random
import re
import shutil

CHUNK = 16384
HDR = 4096
TRAILER = "(no return: trace ended)"


def body(text):
    """replay lines without the duration and tid columns"""
    return [l.split("| ", 1)[1] for l in text.splitlines()[1:] if "| " in l]


def write_trace(ctx, name, data):
    d = os.path.join(ctx.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(os.path.join(ctx.data, "session"), d)
    fnt = os.path.join(d, os.path.basename(ctx.fnt))
    with open(fnt, "wb") as f:
        f.write(data)
    return d, fnt


def no_crash(ctx, d, what):
    """run every view on d; return {cmd: CompletedProcess}"""
    out = {}
    for cmd in (["replay"], ["replay", "--srcline"], ["report", "--format", "csv"], ["info"]):
        p = ctx.run(*cmd, "-d", d)   # ctx.run fails the test on a crash
        for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer"):
            assert bad not in p.stderr, "%s: %s: %s" % (what, cmd, p.stderr[-3000:])
        assert p.returncode in (0, 1), (what, cmd, p.returncode, p.stderr)
        if p.returncode:
            errs = [l for l in p.stderr.splitlines() if l.startswith("fntrace: ") and "warning" not in l]
            assert errs, (what, cmd, p.stderr)
        out[" ".join(cmd)] = p
    return out


def check(ctx):
    fnts = glob.glob(ctx.data + "/*.fnt")
    assert len(fnts) == 1, fnts
    ctx.fnt = fnts[0]
    data = open(ctx.fnt, "rb").read()
    nchunks = (len(data) - HDR) // CHUNK
    assert (len(data) - HDR) % CHUNK == 0 and nchunks >= 6, (len(data), nchunks)
    full = body(ctx.run("replay", check=True).stdout)
    assert len(full) == 1 + 100 * (2 + 100 * 4) + 1, len(full)

    problems = []

    def collect(fn, *args):
        """run one sub-check; keep going after a failure so that one
        report lists every problem"""
        try:
            fn(*args)
        except AssertionError as e:
            label = [a for a in args[1:] if isinstance(a, (str, int))]
            problems.append("%s%s: %s" % (fn.__name__, label, str(e)[:1500]))

    for name, cut in (("mid-chunk", HDR + 3 * CHUNK + 5000),
                      ("boundary", HDR + 4 * CHUNK),
                      ("one-byte", HDR + 2 * CHUNK + 65)):
        collect(cut_file, ctx, name, data, cut, full)
    for cut in (0, 100, HDR - 1, HDR):
        collect(cut_header, ctx, data, cut)
    collect(corrupt_chunk, ctx, data)
    for seed in range(40):
        collect(mutate, ctx, data, nchunks, seed)
    assert not problems, "\n".join(problems)


def cut_file(ctx, name, data, cut, full):
    """1. cut in the middle of a chunk, at a chunk boundary, one byte into
    a chunk's events"""
    if True:
        d, fnt = write_trace(ctx, "cut-" + name, data[:cut])
        r = no_crash(ctx, d, name)
        p = r["replay"]
        assert p.returncode == 0, (name, p.stderr)
        # it says the file was cut, naming it and the chunk
        assert os.path.basename(fnt) in p.stderr and "truncated" in p.stderr, (name, p.stderr)
        assert re.search(r"\d", p.stderr), p.stderr
        got = body(p.stdout)
        # what is shown is exactly the beginning of the full replay, then the
        # frames still open at the cut closed as 'trace ended'
        while got and got[-1].endswith(TRAILER + " */"):
            got.pop()
        assert 100 < len(got) < len(full), (name, len(got))
        # the last event before the cut may be an entry whose exit is gone:
        # 'f() {' here where the full replay folded 'f();'
        if got[-1].endswith("() {") and full[len(got) - 1] == got[-1][:-2] + ";":
            got[-1] = full[len(got) - 1]
        assert got == full[:len(got)], (name, [(i, a, b) for i, (a, b) in enumerate(zip(got, full)) if a != b][:3])
        # a frame closed as 'trace ended' for every one open at the cut
        open_frames = sum(1 for l in body(p.stdout) if l.endswith(TRAILER + " */"))
        assert 1 <= open_frames <= 4, (name, open_frames)



def cut_header(ctx, data, cut):
    """2. the file header cut short: an error naming the file"""
    if True:
        d, fnt = write_trace(ctx, "cut-header", data[:cut])
        r = no_crash(ctx, d, "header cut at %d" % cut)
        p = r["replay"]
        assert p.returncode == 1 and os.path.basename(fnt) in p.stderr, (cut, p.stderr)



def corrupt_chunk(ctx, data):
    """3. random bytes over the events of one chunk: the other chunks decode"""
    bad = bytearray(data)
    rnd = random.Random(2)
    # the third chunk or the first events chunk after it: a chunk the runtime
    # prepared ahead and did not need has a zero magic (format.md) and is
    # skipped by readers, so garbage there would damage nothing
    k = 2
    while data[HDR + k * CHUNK:HDR + k * CHUNK + 5] != b"FTNC\x01":
        k += 1
        assert HDR + k * CHUNK < len(data), "no events chunk after chunk 2"
    start = HDR + k * CHUNK + 64
    bad[start:start + 4000] = bytes(rnd.randrange(256) for _ in range(4000))
    d, fnt = write_trace(ctx, "corrupt", bytes(bad))
    r = no_crash(ctx, d, "corrupt")
    p = r["report --format csv"]
    assert p.returncode == 0 and os.path.basename(fnt) in p.stderr, p.stderr
    calls = {l.split(",")[0]: int(l.split(",")[1]) for l in p.stdout.splitlines()[1:]}
    # at most a chunk's worth of calls is lost (16K at >= 1 byte per event)
    assert 20000 - 16384 // 2 <= calls.get("leaf", 0) < 20000, calls



def mutate(ctx, data, nchunks, seed):
    """4. seeded mutations of every kind: never a crash or a hang"""
    if True:
        rnd = random.Random(seed)
        m = bytearray(data)
        kind = seed % 5
        if kind == 0:        # scattered bytes anywhere
            for _ in range(rnd.randrange(1, 40)):
                m[rnd.randrange(len(m))] = rnd.randrange(256)
        elif kind == 1:      # the file header
            for _ in range(rnd.randrange(1, 6)):
                m[rnd.randrange(256)] = rnd.randrange(256)
        elif kind == 2:      # a chunk header
            off = HDR + rnd.randrange(nchunks) * CHUNK
            for _ in range(rnd.randrange(1, 6)):
                m[off + rnd.randrange(64)] = rnd.randrange(256)
        elif kind == 3:      # a block of garbage
            off = rnd.randrange(HDR, len(m))
            n = min(rnd.randrange(1, 3000), len(m) - off)
            m[off:off + n] = bytes(rnd.randrange(256) for _ in range(n))
        else:                # cut anywhere
            m = m[:rnd.randrange(len(m))]
        d, fnt = write_trace(ctx, "mutated", bytes(m))
        try:
            no_crash(ctx, d, "mutation seed %d kind %d" % (seed, kind))
        except AssertionError:
            shutil.copy(fnt, os.path.join(ctx.work, "crash-%d.fnt" % seed))
            raise
