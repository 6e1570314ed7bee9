"""A multithreaded program that exits while its threads still make calls.
exit() ends the threads wherever they are: some between taking the
number of their next chunk (an atomic counter in the file's header) and
reserving its blocks.  The reader took every number handed out for a
chunk of the file, and said "file is truncated: 125 of 128 chunks
present" of 8 traces in 10 (16 KiB chunks), though no event was missing.
The header now also keeps how many chunks had their blocks, and a cut is
measured against that.  A file really cut at a chunk boundary still says
so (damaged-trace)."""
import csv
import glob
import io
import os
import re
import shutil
import struct

RUNS = 8


def check(ctx):
    for i in range(RUNS):
        opts = ("-q", "--chunk-size", "16K") + (("--no-drain",) if i % 2 else ())
        d, rec = ctx.record_build("prog", "exiting\n", record_args=opts)
        assert rec.stderr == "", (opts, rec.stderr)
        info = ctx.run("info", "-d", d, check=True)
        assert info.stderr == "", (opts, info.stderr)
        assert re.search(r"^lost: 0$", info.stdout, re.M), (opts, info.stdout)
        assert "status: exited with 0\n" in info.stdout, (opts, info.stdout)
        rep = ctx.run("report", "-d", d, "--threads", "--format", "csv", check=True)
        assert rep.stderr == "", (opts, rep.stderr)
        rows = ctx.csv("-d", d, "--threads")
        per = {}
        for r in rows:
            per.setdefault(r["tid"], {})[r["function"]] = int(r["calls"])
        workers = [c for c in per.values() if "work" in c]
        assert len(workers) == 4, (opts, per)
        for c in workers:
            # each thread's calls whole up to where exit() stopped it
            assert c["work"] > 20000 and 2 * c["work"] - 2 <= c["leaf"] <= 2 * c["work"], (opts, c)
    crafted(ctx, d)


HDR, CHUNK = 4096, 16384
FLAGS, NEXT_CHUNK, CHUNKS_RESERVED = 20, 40, 2824
FLAG_RESERVED = 0x40
WARN = re.compile(r"^fntrace: warning: '[^']*\.fnt': file is truncated: (\d+) of (\d+) chunks present; "
                  r"events up to the cut are kept\n$")


def crafted(ctx, d):
    """The same races made on purpose in a copy of the last trace, so that
    each side is checked every run, not only when a thread died there."""
    src = glob.glob(os.path.join(d, "*.fnt"))
    assert len(src) == 1, src
    data = bytearray(open(src[0], "rb").read())
    n = (len(data) - HDR) // CHUNK
    assert (len(data) - HDR) % CHUNK == 0 and data[FLAGS] & FLAG_RESERVED, len(data)
    reserved = struct.unpack_from("<Q", data, CHUNKS_RESERVED)[0]
    # (a thread may have been ended after its chunk's blocks, before it
    # counted them)
    assert n - 4 <= reserved <= n, (reserved, n)
    want = ctx.counts("-d", d)

    def view(name, m, whole=True):
        t = os.path.join(ctx.work, "crafted-" + name)
        shutil.rmtree(t, ignore_errors=True)
        shutil.copytree(d, t)
        open(os.path.join(t, os.path.basename(src[0])), "wb").write(bytes(m))
        rep = ctx.run("report", "-d", t, "--format", "csv", check=True)
        got = {}
        for r in csv.DictReader(io.StringIO(rep.stdout)):
            got[r["function"]] = got.get(r["function"], 0) + int(r["calls"])
        # (what is cut off is gone: the calls before it are all there)
        assert got == want if whole else all(0 < got[f] <= want[f] for f in want), (name, got, want)
        return rep.stderr

    # numbers taken by threads that exit() ended before they reserved them
    m = bytearray(data)
    struct.pack_into("<Q", m, NEXT_CHUNK, n + 3)
    assert view("numbers-taken", m) == "", "numbers-taken"
    # a file with fewer chunks than had their blocks: cut
    struct.pack_into("<Q", m, CHUNKS_RESERVED, n + 1)
    assert WARN.match(view("cut", m)).groups() == (str(n), str(n + 1)), "cut"
    # a file of before the field: numbers taken is all it has
    m = bytearray(data)
    struct.pack_into("<Q", m, NEXT_CHUNK, n + 3)
    m[FLAGS] &= ~FLAG_RESERVED
    assert WARN.match(view("older", m)).groups() == (str(n), str(n + 3)), "older"
    # a chunk's blocks half written as zeros (where fallocate is not had)
    # when the process ended: no word
    m = bytearray(data) + bytes(CHUNK // 2)
    assert view("half-reserved", m) == "", "half-reserved"
    # but a chunk that had its blocks, cut inside, is a cut
    struct.pack_into("<Q", m, CHUNKS_RESERVED, n + 1)
    err = view("cut-inside", m)
    assert re.fullmatch(r"fntrace: warning: '[^']*\.fnt': file is truncated inside chunk %d \(8192 of 16384 bytes "
                        r"present\); events up to the cut are kept\n" % n, err), err
    # a chunk begun when the process ended: its header written, not yet
    # its magic, no event: skipped without a word
    first = HDR
    while data[first:first + 5] != b"FTNC\x01":
        first += CHUNK
    begun = bytearray(data[first:first + 64]) + bytes(CHUNK - 64)
    begun[0:4] = bytes(4)
    m = bytearray(data) + begun
    struct.pack_into("<Q", m, CHUNKS_RESERVED, n + 1)
    struct.pack_into("<Q", m, NEXT_CHUNK, n + 1)
    assert view("begun", m) == "", "begun"
    # the same header over events is damage, and said, wherever the
    # events are; so is a header all zeros over events
    damaged = re.compile(r"fntrace: warning: '[^']*\.fnt': 1 chunk\(s\) with a corrupt header skipped\n")
    for name, at, header in (("damaged", 64, True), ("damaged-far", 9000, True), ("zero-header", 300, False)):
        d2 = bytearray(m)
        if not header:
            d2[len(data):len(data) + 64] = bytes(64)
        d2[len(data) + at] = 0x10
        err = view(name, d2)
        assert damaged.fullmatch(err), (name, err)
    # a field zeroed (or damaged) below a chunk with its magic is not
    # trusted: the numbers taken measure the cut
    m = bytearray(data[:HDR + (n - 2) * CHUNK])
    struct.pack_into("<Q", m, CHUNKS_RESERVED, 0)
    assert WARN.match(view("field-wrong", m, False)).groups() == (str(n - 2), str(struct.unpack_from("<Q", data, NEXT_CHUNK)[0])), \
        "field-wrong"
    m += bytes(CHUNK // 2)
    err = view("field-wrong-inside", m, False)
    assert re.fullmatch(r"fntrace: warning: '[^']*\.fnt': file is truncated inside chunk %d \(8192 of 16384 bytes "
                        r"present\); events up to the cut are kept\n" % (n - 2), err), err
