#!/usr/bin/env python3
"""Seed corpus for tests/fuzz/fuzz-reader.c.

usage: make-corpus.py DIR

Writes into DIR (created if needed):
  - real traces: a tiny -finstrument-functions program (threads, recursion, a
    dlopen'd library) recorded with <build>/libfntrace.so preloaded and
    FNTRACE_CHUNK_SIZE=16384, with and without call sites, on both clocks;
    each .fnt truncated to 64 KiB (the fuzzer's -max_len).  <build> is DIR's
    parent (make passes $(O)/fuzz-corpus), else ./build.  Skipped, with a
    note, if the runtime or a C compiler is missing.
  - synthetic images built here from doc/format.md, which always work: every
    event and meta record kind, so the fuzzer starts from deep inside.
  - every file of tests/fuzz/regress/ (inputs that once broke the reader),
    so each smoke run replays them.
  - in DIR/symtab/, for tests/fuzz/fuzz-symtab.c: the saved symbol tables
    (DIR/symtab/*.sym) of the same program recorded with <build>/fntrace.
Only the standard library is used.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_LEN = 65536
CHUNK = 16384
HEADER = 4096

PROG = r'''
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int fib(int n) { return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) void *worker(void *a) { long s = 0; for (int i = 0; i < 50; i++) s += fib(6); return (void *)s; }
int main(int argc, char **argv) {
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	worker(NULL);
	pthread_join(t, NULL);
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (h) {
			int (*f)(int) = (int (*)(int))dlsym(h, "plug");
			if (f) f(3);
			dlclose(h);
		}
	}
	return 0;
}
'''
LIB = r'''
__attribute__((noinline)) static int inner(int x) { __asm__ volatile(""); return x * 2; }
int plug(int x) { return inner(x) + 1; }
'''


def varint(v):
    bits = max(1, (v | 1).bit_length())
    n = (bits + 6) // 7
    assert n <= 8
    return ((v << n) | (1 << (n - 1))).to_bytes(n, "little")


def zigzag(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def slot(addr):
    return ((addr * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 58


def file_header(flags=0, clock=1, n_chunks=2, end=True, version=1):
    cal0 = (1000000, 5000000000, 1700000000000000000)
    cal1 = (4000000, 5001000000, 1700000000001000000)
    endv = (400000000, 5133000000, 1700000000133000000) if end else (0, 0, 0)
    cmd = b"./prog\0arg\0"
    h = struct.pack("<8sIIIIIIII", b"FNTRACE1", version, HEADER, CHUNK, flags, 4242, 1, 0, clock)
    h += struct.pack("<QQ", n_chunks, 1)
    h += struct.pack("<3Q3Q3Q", *cal0, *cal1, *endv)
    h += struct.pack("<II", 1 if end else 0, 0)
    h += struct.pack("<3Q", 0, 0, 0) + bytes(64)
    h += b"/tmp/prog".ljust(512, b"\0")
    h += struct.pack("<II", len(cmd), 0) + cmd.ljust(2048, b"\0")
    return h.ljust(HEADER, b"\0")


def chunk(ctype, data, thread=0, tid=0, seq=0, depth=0, base=2000000, mono=5000500000, name=b"prog", below=0):
    h = struct.pack("<IB3xIIIiQQ16sQ", 0x434E5446, ctype, thread, tid, seq, depth, base, mono, name, below)
    assert len(h) == 64
    body = h + data
    assert len(body) <= CHUNK - 64
    return body.ljust(CHUNK, b"\0")


def meta_record(mtype, payload):
    rec = struct.pack("<I", len(payload) << 8 | mtype) + payload
    return rec + bytes((-len(rec)) % 8)


def module(ticks, bias, lo, hi, path, bid=b"\x12" * 20):
    return struct.pack("<QQQQB32s7x", ticks, bias, lo, hi, len(bid), bid) + path + b"\0"


def meta_chunk(seq=0, extra=b""):
    d = extra + meta_record(1, module(1000, 0x555555554000, 0x555555554000, 0x555555559000, b"/tmp/prog"))
    d += meta_record(1, module(1500, 0x7f0000000000, 0x7f0000000000, 0x7f0000010000, b"/lib/libc.so.6"))
    d += meta_record(3, struct.pack("<QII16s", 2000000, 0, 4242, b"prog"))
    d += meta_record(3, struct.pack("<QII16s", 2100000, 1, 4243, b"worker"))
    d += meta_record(7, struct.pack("<QQ", 2200000, 0x555555558040) + b"named scope\0")   # SCOPE
    d += meta_record(1, module(3000000, 0x7f1000000000, 0x7f1000000000, 0x7f1000004000, b"/tmp/libplug.so"))
    d += meta_record(2, module(3500000, 0x7f1000000000, 0x7f1000000000, 0x7f1000004000, b"/tmp/libplug.so"))
    d += meta_record(1, module(3600000, 0x7f1000000000, 0x7f1000000000, 0x7f1000004000, b"/tmp/libplug.so"))
    return chunk(2, d, seq=seq)


def events(addrs, callsite=False, extras=True, seed=1, payloads=False, stacks=False):
    """entries/exits over addrs (nested), with every EXT record kind;
    payloads: ARGS after entries, RETVAL after exits (file flag 0x2)"""
    out = bytearray()
    cache = {}
    prev = 0
    r = seed

    def ev(addr, is_exit, d):
        nonlocal prev
        s = slot(addr)
        if cache.get(s) == addr:
            out.extend(varint(d << 8 | s << 2 | (1 if is_exit else 0)))
        else:
            out.extend(varint(d << 8 | (1 if is_exit else 0) << 2 | 2))
            out.extend(varint(zigzag(addr - prev)))
            cache[s] = addr
            prev = addr
        if callsite and not is_exit:
            out.extend(varint(2 << 2 | 3))
            out.extend(varint(zigzag(0x40)))
        if payloads:
            body = (struct.pack("<q", -5) + bytes([2, 3]) + b"abc") if not is_exit else struct.pack("<Q", 6)
            out.extend(varint((8 if is_exit else 7) << 2 | 3))
            out.extend(varint(len(body)))
            out.extend(body)

    def ext(kind, d=0):
        out.extend(varint(d << 8 | kind << 2 | 3))

    if stacks:                                      # (version 3) a chunk that began on a coroutine's stack
        ext(21)
        out.extend(varint(0x7f0000200000) + varint(2) + varint(3))  # SWITCH_OPEN: 2 calls open, 3 under
    if extras:
        ext(4)
        out.extend(bytes([6]) + b"worker")          # THREAD_NAME
    stack = []
    for i in range(120):
        r = (r * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        if stack and (r >> 60) < 7:
            ev(stack.pop(), True, (r >> 20) & 0xFFF)
        else:
            a = addrs[(r >> 33) % len(addrs)]
            stack.append(a)
            ev(a, False, (r >> 8) & 0xFFFF)
        if extras and i == 40:
            out.extend(varint(1 << 2 | 3) + struct.pack("<Q", 3000100))   # TIME
        if stacks and i in (30, 100):
            ext(11, 9)
            out.extend(varint(0 if i == 30 else 0x7f0000200000))    # SWITCH
        if stacks and i == 65:
            ext(21, 4)
            out.extend(varint(0x7f0000300001) + varint(1) + varint(0))  # SWITCH_OPEN to a hand-switched stack
        if extras and i == 60:
            ext(3, 5)
            out.extend(varint(2))                      # LOST 2
        if extras and i == 50:
            ext(9, 11)
            out.extend(bytes([5]) + b"mark!")            # MARK
        if extras and i == 70:
            ext(10, 13)                                 # STACK of 3 return addresses
            out.extend(varint(3))
            p = 0
            for a in (0x555555555123, 0x7f0000001300, 0x555555556010):
                out.extend(varint(zigzag(a - p)))
                p = a
        if extras and i == 80 and len(stack) > 1:
            ext(6, 7)
            out.extend(varint(1))                      # UNWIND 1
            stack.pop()
        if extras and i == 90 and len(stack) > 2:
            ext(14, 5)
            out.extend(varint(stack[1]))               # UNWIND_TO the second open call's function
            ext(12)
            out.extend(varint(zigzag(0x35)))           # LANDING 0x35 past its start
            del stack[2:]
    while stack:
        ev(stack.pop(), True, 3)
    if extras:
        ext(5, 9)                                       # THREAD_END
    return bytes(out)


def synthetic():
    addrs = [0x555555555100, 0x555555555200, 0x555555556000, 0x7f0000001234, 0x7f1000001000, 0x7f1000001100]
    seeds = {}
    body = meta_chunk() + chunk(1, events(addrs), thread=0, tid=4242)
    seeds["synth-basic.fnt"] = file_header(n_chunks=2) + body
    body = meta_chunk() + chunk(1, events(addrs, callsite=True, seed=7), thread=0, tid=4242)
    seeds["synth-callsite.fnt"] = file_header(flags=1, n_chunks=2) + body
    body = (meta_chunk() + chunk(1, events(addrs[:2], seed=3), thread=0, tid=4242, seq=0)
            + chunk(1, events(addrs[2:], seed=5), thread=1, tid=4243, seq=0, depth=2, name=b"worker"))
    seeds["synth-threads-mono.fnt"] = file_header(clock=2, n_chunks=3, end=False) + body
    # a ring (flag 0x4, reserved[2] = 2 chunks) whose thread starts at seq 5,
    # depth 3, and a chunk caught while being rewritten (magic 0)
    body = (meta_chunk() + chunk(1, events(addrs, seed=9), thread=0, tid=4242, seq=6)
            + chunk(1, events(addrs, seed=11), thread=0, tid=4242, seq=5, depth=3)
            + (bytes(4) + chunk(1, b"", thread=1, tid=4243, seq=2)[4:])[:64])   # (cut: the 64K limit)
    hdr = bytearray(file_header(flags=4, n_chunks=4))
    struct.pack_into("<Q", hdr, 160 + 2 * 8, 2)
    seeds["synth-ring.fnt"] = bytes(hdr) + body
    body = chunk(1, events(addrs, extras=False, seed=9), thread=0, tid=4242, seq=1, depth=1)
    seeds["synth-nometa.fnt"] = file_header(n_chunks=1) + body
    seeds["synth-truncated.fnt"] = (file_header(n_chunks=2) + meta_chunk()
                                    + chunk(1, events(addrs, seed=11), thread=0, tid=4242))[:HEADER + CHUNK + 300]
    seeds["synth-header-only.fnt"] = file_header(n_chunks=0)
    spec = b"".join(meta_record(4, struct.pack("<Q", a) + b"x=arg1/i64,name=arg2/s,retval\0") for a in addrs)
    body = meta_chunk(extra=spec) + chunk(1, events(addrs, seed=13, payloads=True), thread=0, tid=4242)
    seeds["synth-args.fnt"] = file_header(flags=2, n_chunks=2) + body
    # (version 4: fixed-size values take their size; the reader sees only lengths)
    seeds["synth-args-v4.fnt"] = file_header(flags=2, n_chunks=2, version=4) + body
    # hostile headers (doc/safety.md, "Reading untrusted traces"): call
    # depths at both ends of int32, and a thread serial at the reader's limit
    body = (meta_chunk() + chunk(1, events(addrs, seed=15), thread=0, tid=4242, depth=0x7FFFFFFF)
            + chunk(1, events(addrs, seed=17), thread=(1 << 20) - 1, tid=4243, depth=-0x80000000))
    seeds["synth-depth-extremes.fnt"] = file_header(n_chunks=3) + body
    # many thread records, and one plugin loaded and unloaded again and
    # again, unloads in the order of the loads (the lookups opening must not
    # make quadratic), then events that resolve against them
    d = b"".join(meta_record(3, struct.pack("<QII16s", 2000000 + i, i, 5000 + i, b"t%d" % i)) for i in range(200))
    for i in range(30):
        d += meta_record(1, module(3000000 + i, 0x7f1000000000, 0x7f1000000000, 0x7f1000004000, b"/tmp/libplug.so"))
    for i in range(30):
        d += meta_record(2, module(3100000 + i, 0x7f1000000000, 0x7f1000000000, 0x7f1000004000, b"/tmp/libplug.so"))
    body = chunk(2, d) + chunk(1, events(addrs, seed=19), thread=199, tid=5199)
    seeds["synth-many-records.fnt"] = file_header(n_chunks=2) + body
    # coroutines (version 3): chunks that begin on a coroutine's stack
    # (`below`: 2 calls on it, 3 on the thread's own under it), SWITCH and
    # SWITCH_OPEN records, a ring's history and a gap before them
    body = (meta_chunk() + chunk(1, events(addrs, seed=21, stacks=True), thread=0, tid=4242, seq=3, depth=5,
                                 below=3 | 4 << 32)
            + chunk(1, events(addrs, seed=23, stacks=True), thread=0, tid=4242, seq=5, depth=4, below=3))
    seeds["synth-stacks.fnt"] = file_header(n_chunks=3, version=3) + body
    hdr = bytearray(file_header(flags=4, n_chunks=3, version=3))
    struct.pack_into("<Q", hdr, 160 + 2 * 8, 2)
    seeds["synth-stacks-ring.fnt"] = bytes(hdr) + body
    return seeds


def find_build(out):
    cands = [os.path.dirname(os.path.abspath(out)), os.path.join(ROOT, "build")]
    for c in cands:
        if os.path.exists(os.path.join(c, "libfntrace.so")):
            return c
    return None


SYMTAB_SEEDS = {}


def recorded(out):
    build = find_build(out)
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not build or not cc:
        print("make-corpus: no libfntrace.so or C compiler; synthetic seeds only")
        return {}
    seeds = {}
    tmp = tempfile.mkdtemp(prefix="fntrace-corpus.")
    try:
        with open(os.path.join(tmp, "prog.c"), "w") as f:
            f.write(PROG)
        with open(os.path.join(tmp, "lib.c"), "w") as f:
            f.write(LIB)
        prog, lib = os.path.join(tmp, "prog"), os.path.join(tmp, "libplug.so")
        subprocess.run([cc, "-g", "-O1", "-finstrument-functions", "-fPIC", "-shared", "-o", lib,
                        os.path.join(tmp, "lib.c")], check=True, capture_output=True)
        subprocess.run([cc, "-g", "-O1", "-finstrument-functions", "-o", prog, os.path.join(tmp, "prog.c"),
                        "-ldl", "-lpthread"], check=True, capture_output=True)
        for name, extra in (("tsc", {"FNTRACE_CLOCK": "tsc"}),
                            ("mono", {"FNTRACE_CLOCK": "monotonic"}),
                            ("callsite", {"FNTRACE_CALLSITE": "1"})):
            data = os.path.join(tmp, "data-" + name)
            env = dict(os.environ)
            env.pop("FNTRACE_DISABLE", None)
            env.update(extra)
            env.update({"FNTRACE_DIR": data, "FNTRACE_CHUNK_SIZE": str(CHUNK),
                        "LD_PRELOAD": os.path.join(build, "libfntrace.so")})
            subprocess.run([prog, lib], env=env, check=True, capture_output=True, timeout=60)
            for fn in sorted(os.listdir(data)):
                if fn.endswith(".fnt"):
                    with open(os.path.join(data, fn), "rb") as f:
                        seeds["rec-%s-%s" % (name, fn)] = f.read(MAX_LEN)
        data = os.path.join(tmp, "data-symtab")
        subprocess.run([os.path.join(build, "fntrace"), "record", "-q", "--callsite", "-d", data, "--", prog, lib],
                       check=True, capture_output=True, timeout=60)
        for fn in sorted(os.listdir(os.path.join(data, "symtab"))):
            with open(os.path.join(data, "symtab", fn), "rb") as f:
                body = f.read()
            if len(body) <= MAX_LEN:
                SYMTAB_SEEDS["rec-" + fn] = body
    except (OSError, subprocess.SubprocessError) as e:
        print("make-corpus: recording failed (%s); synthetic seeds only" % e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return seeds


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = synthetic()
    seeds.update(recorded(out))
    for name, data in seeds.items():
        assert len(data) <= MAX_LEN, name
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    os.makedirs(os.path.join(out, "symtab"), exist_ok=True)
    for name, data in SYMTAB_SEEDS.items():
        with open(os.path.join(out, "symtab", name), "wb") as f:
            f.write(data)
    regress = os.path.join(ROOT, "tests", "fuzz", "regress")
    n_reg = 0
    if os.path.isdir(regress):
        for fn in sorted(os.listdir(regress)):
            p = os.path.join(regress, fn)
            if os.path.isfile(p):
                shutil.copyfile(p, os.path.join(out, "regress-" + fn))
                n_reg += 1
    print("make-corpus: %d seeds, %d regression inputs in %s" % (len(seeds), n_reg, out))


if __name__ == "__main__":
    main()
