"""What the perf cases share: whether `perf record` works on this machine,
`perf record` around `fntrace record`, and reading `perf script`'s text:
its samples, and which of them fntrace cannot match by design."""
import os
import re
import shutil
import subprocess

# a sample's header line and its frame lines, as FlameGraph's
# stackcollapse-perf.pl and speedscope 1.25's importer read them
HEADER = re.compile(r"^(\S+\s*?\S*?)\s+(\d+)(?:/(\d+))?\s")
FRAME = re.compile(r"^\s*(\w+)\s*(.+) \((\S*)\)")


def usable(ctx, how=("-g",)):
    """(perf's path, None), or (None, why the case is skipped here); how:
    the call-graph option the case records with"""
    perf = shutil.which("perf")
    if not perf:
        return None, "perf is not installed (apt-get install linux-perf)"
    p = subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", *how,
                        "-o", os.path.join(ctx.work, "probe.data"), "--", "true"],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    if p.returncode:
        return None, "'perf record' fails here: %s" % (p.stderr.strip().splitlines() or
                                                      ["status %d" % p.returncode])[-1]
    return perf, None


def record(ctx, perf, data, d, prog, how=("-g",), args=(), env=None):
    """`perf record` (the call graph as how says) around `fntrace record` of
    prog: perf's samples in data, the trace in d; the finished process"""
    return subprocess.run([perf, "record", "-q", "-k", "mono", "-e", "cpu-clock", *how, "-o", data, "--",
                           ctx.fntrace, "record", "-d", d, *args, "--", prog], capture_output=True, text=True,
                          cwd=ctx.work, timeout=120, env=env)


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
        off = re.search(r"\+0x([0-9a-f]+)$", m.group(2))
        cur[1].append((m.group(2)[:off.start()] if off else m.group(2), m.group(3), int(off.group(1), 16) if off else None))
    if cur:
        out.append(cur)
    return out


def swapped(frame):
    """a swapped return address, as doc/perf-script.md defines it (a pc
    elsewhere in the trampoline is fntrace's own code running: perf then
    may name it "fnt_return_trampoline+0x1b (inlined)", by the line table's
    function, with the offset from fnt_traced_return, and it stays)"""
    f, _, off = frame
    return (f == "fnt_traced_return" and off in (0, 1)) or (f == "fnt_return_trampoline" and off in (0, None))


def pc_own(frames):
    """a sample whose pc is fntrace's own code: a hook, the trampoline past
    its return address, or a library-call stub the runtime made (anonymous
    memory, which perf names after the /tmp/perf-PID.map it would read)"""
    return bool(frames) and not swapped(frames[0]) and \
        (frames[0][1].endswith("libfntrace.so") or re.search(r"/perf-\d+\.map$|//anon", frames[0][1]) is not None)


def own_code(frames):
    """pc_own, with a swapped frame above it (perf's unwinding by frame
    pointers goes on past the trampoline; by DWARF it stops there)"""
    return pc_own(frames) and any(swapped(fr) for fr in frames[1:])
