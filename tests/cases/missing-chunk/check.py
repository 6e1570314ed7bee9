"""disk-full's program (main calls step N times, step calls leaf).
A chunk of the thread missing in the middle of the file (its header
zeroed: a disk that filled and then had room again, a chunk damaged or
never copied).  The calls open before the gap end in it ("no return:
trace data missing"), and the exits after it of calls entered in it are
orphans "entered where trace data is missing", also in the exports.
Before, the reader paired an entry before the gap with an exit after it:
`main`, open across it, closed at its real exit as if nothing were
missing, and the calls entered in the gap paired their exits with entries
from before it."""
import glob
import os
import re
import struct

CHUNK = 16384
HEADER = 4096


def drop_chunk(data, which, f=None):
    """zero the header of thread 0's event chunk `which` (an index into
    its chunks in seq order, "middle" for the middle one) in file f (the
    trace's only one by default)"""
    f = f or glob.glob(os.path.join(data, "*.fnt"))[0]
    d = bytearray(open(f, "rb").read())
    chunks = []
    for i in range((len(d) - HEADER) // CHUNK):
        off = HEADER + i * CHUNK
        magic, typ, thread, tid, seq = struct.unpack_from("<IB3xIII", d, off)
        if magic and typ == 1 and thread == 0:
            chunks.append((seq, off))
    chunks.sort()
    assert len(chunks) >= (5 if which == "middle" else which + 2), chunks
    seq, off = chunks[len(chunks) // 2 if which == "middle" else which]
    d[off:off + 4] = b"\0\0\0\0"
    open(f, "wb").write(d)


def check(ctx):
    drop_chunk(ctx.data, "middle")

    info = ctx.run("info", check=True).stdout
    assert re.search(r"^  damage: .*, 1 missing chunks$", info, re.M), info
    out = ctx.run("replay", check=True).stdout
    lines = out.splitlines()
    gap = [i for i, l in enumerate(lines) if "(no return: trace data missing)" in l]
    # main, open across the gap, ends there (with step and leaf, when the
    # chunk ended inside them)
    assert gap and any(re.search(r"\| \} /\* main \(no return: trace data missing\) \*/$", lines[i]) for i in gap), \
        "\n".join(lines[:5] + [lines[i] for i in gap])
    # after it, the exits of the calls entered in the gap: main's last of all
    orphans = [l for l in lines if "(entered where trace data is missing)" in l]
    assert orphans and re.search(r"\| \} /\* main \(entered where trace data is missing\) \*/$", orphans[-1]), orphans
    assert "entered before this process began" not in out, [l for l in lines if "began" in l][:3]
    # the exports say so too
    chrome = ctx.run("export", "--format", "chrome", "-o", "-", check=True).stdout
    assert '"end":"exit of a call entered where trace data is missing"' in chrome
    assert '"end":"trace data missing"' in chrome

    # the thread's first chunk missing: the exits of the calls entered in
    # it are the gap's too, not "before this process began"
    data = os.path.join(ctx.work, "first.data")
    ctx.run("record", "-q", "--chunk-size", "16K", "-d", data, "--", os.path.join(ctx.work, "prog"), "20000",
            data=False, check=True)
    drop_chunk(data, 0)
    out = ctx.run("replay", "-d", data, data=False, check=True).stdout
    assert "(entered where trace data is missing)" in out and "before this process began" not in out, out[:1500]

    # coroutines: the frames of the machine stack parked at the gap end
    # there too (before, main's `next`, parked while the generator ran,
    # was paired with an exit after the gap); both stacks' bottom frames
    data = os.path.join(ctx.work, "co.data")
    ctx.run("record", "-q", "--chunk-size", "16K", "-d", data, "--", os.path.join(ctx.work, "co"), data=False,
            check=True)
    drop_chunk(data, "middle")
    out = ctx.run("replay", "-d", data, data=False, check=True).stdout
    ends = re.findall(r"\} /\* (\w+) \(no return: trace data missing\) \*/", out)
    assert "main" in ends and "generator" in ends, ends
    # and after the gap each call shows at the depth it had before it:
    # the chunk after the gap begins with a SWITCH to the stack it was
    # written on, and says how many calls are open there and under it
    # (before, the reader went on on the stack it was on at the gap, and
    # the generator's calls showed as deep as main's, or main's as deep as
    # the thread's whole depth count)
    depths = {}
    for m in re.finditer(r"^[^|\n]*\|( *)(\w+)\(\) \{$", out, re.M):
        depths.setdefault(m.group(2), set()).add(len(m.group(1)))
    one = {"main", "generator", "produce", "yield", "next", "consume"}     # (tick: under both)
    assert depths.keys() >= one and all(len(depths[f]) == 1 for f in one), depths

    # a child forked after a gap inherits no frame from before it: before,
    # the parent's frames open before the gap (main, phase1, burn, which
    # the views end at the gap) were the child's, and graph put its
    # childwork under main -> phase1 -> burn
    data = os.path.join(ctx.work, "fork.data")
    ctx.run("record", "-q", "--chunk-size", "16K", "-d", data, "--", os.path.join(ctx.work, "fork"), data=False,
            check=True)
    files = sorted(glob.glob(os.path.join(data, "*.fnt")), key=lambda p: int(os.path.basename(p).split("-")[0]))
    assert len(files) == 2, files
    drop_chunk(data, 1, files[0])
    out = ctx.run("graph", "-d", data, data=False, check=True).stdout
    # (the child's first frame: with nothing from before the gap above it.
    # Where the chunks end depends on the events' sizes, which depend on
    # the time between them: on a loaded machine the dropped chunk may lie
    # inside phase1, and forker and do_fork, entered after the gap, are
    # then rightly the child's, above childwork.  This case failed so
    # once, asserting childwork at the top)
    rows = [l for l in out.splitlines() if re.search(r"\d  [ |+-]*\w+( \[.*\])?$", l)]
    names = [re.search(r"\d  ([ |+-]*)(\w+)", l) for l in rows]
    child = [i for i, m in enumerate(names) if m.group(2) == "childwork"]
    assert len(child) == 1, out
    above, level = [], len(names[child[0]].group(1))
    for m in reversed(names[:child[0]]):
        if len(m.group(1)) < level:
            above.append(m.group(2))
            level = len(m.group(1))
    assert not {"main", "phase1", "burn"} & set(above) and above in ([], ["do_fork", "forker"]), (above, out)
