"""Readers for the chrome and perfetto exports, shared by the export-* cases.

Both turn an export into slices per thread, check that they nest exactly,
and recompute what `report --format csv` prints from them:
  calls    = the number of slices with that name,
  total_ns = the sum of the durations of its outermost slices on each thread
             (a slice with no ancestor of the same name: recursion counted once),
  self_ns  = the sum over its slices of duration minus the children's durations.
Times are compared in exact nanoseconds (the chrome export's microseconds
with three decimals are read as decimals, not floats).
"""
import decimal
import json
import os
import subprocess


def export(ctx, fmt, *args, out=None):
    out = out or os.path.join(ctx.work, "out.%s" % fmt)
    p = ctx.run("export", "-d", ctx.data, "-f", fmt, "-o", out, *args)
    if p.returncode != 0:
        raise AssertionError("export %s failed (%d): %s" % (fmt, p.returncode, p.stderr))
    return out


# ---- chrome ----

def ns(x):
    v = decimal.Decimal(x) * 1000
    assert v == v.to_integral_value(), x
    return int(v)


def load_chrome(path):
    with open(path, "rb") as f:
        data = f.read()
    doc = json.loads(data.decode("utf-8"), parse_float=decimal.Decimal)
    assert doc["displayTimeUnit"] == "ns", doc.keys()
    return doc["traceEvents"]


def chrome_threads(events):
    """Pair each thread's B and E events: {(pid, tid): [(start, end, name, args)]}
    (args: the B's "cat" as "src" merged with the E's args), plus thread names, process names and
    instants.  Checks that every E closes an open B of its thread, that none
    is left open, and that a thread's times never decrease in file order (so
    a viewer that sorts by time keeps the nesting)."""
    slices, tnames, pnames, instants = {}, {}, {}, []
    stacks, last = {}, {}
    for e in events:
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "thread_name":
                tnames[(e["pid"], e["tid"])] = e["args"]["name"]
            elif e["name"] == "process_name":
                pnames[e["pid"]] = e["args"]["name"]
            continue
        key = (e["pid"], e["tid"])
        ts = ns(e["ts"])
        assert ts >= last.get(key, 0), "time goes back on thread %r: %r" % (key, e)
        last[key] = ts
        if ph == "i":
            instants.append(e)
            continue
        st = stacks.setdefault(key, [])
        if ph == "B":
            # speedscope folds a B's args into its frame name: the source
            # line is its "cat", the values and markers are on the E
            assert "args" not in e, "B event with args: %r" % e
            st.append((ts, e["name"], {"src": e["cat"]} if "cat" in e else {}))
        else:
            assert ph == "E", e
            assert st, "E with no open B on thread %r: %r" % (key, e)
            start, name, args = st.pop()
            assert e["name"] == name, "E named %r closes B %r (speedscope pairs them by name)" % (e, name)
            slices.setdefault(key, []).append((start, ts, name, dict(args, **e.get("args", {}))))
    for key, st in stacks.items():
        assert not st, "B events never closed on %r: %r" % (key, st)
    return slices, tnames, pnames, instants


# ---- speedscope's own format ----

def load_speedscope(path):
    """Read a speedscope file: returns ({profile name: [(start, end, name, {"src": file:line})]},
    frames).  Checks the schema's shape: evented profiles in nanoseconds, every
    frame index in the shared table, every C closing the frame on top of its
    profile's stack, times that never decrease, stacks empty at the end, and
    start/end values bounding the events."""
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json", doc.get("$schema")
    frames = doc["shared"]["frames"]
    assert all(isinstance(fr["name"], str) for fr in frames), frames
    out = {}
    for prof in doc["profiles"]:
        assert prof["type"] == "evented" and prof["unit"] == "nanoseconds", prof.keys()
        assert prof["name"] not in out, "two profiles named %r" % prof["name"]
        st, sl, last = [], [], prof["startValue"]
        for e in prof["events"]:
            assert e["at"] >= last, "time goes back in %r: %r" % (prof["name"], e)
            last = e["at"]
            fr = frames[e["frame"]]
            src = {"src": "%s:%d" % (fr["file"], fr["line"])} if "file" in fr else {}
            if e["type"] == "O":
                st.append((e["at"], e["frame"]))
            else:
                assert e["type"] == "C", e
                assert st and st[-1][1] == e["frame"], "C of frame %r closes %r" % (e, st[-1:])
                start, _ = st.pop()
                sl.append((start, e["at"], fr["name"], src))
        assert not st, "frames left open in %r: %r" % (prof["name"], st)
        assert last <= prof["endValue"], (last, prof["endValue"])
        out[prof["name"]] = sl
    return out, frames


# ---- perfetto: a minimal protobuf reader ----

def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def fields(buf):
    """[(field, value)]: ints for varints, bytes for length-delimited"""
    out, i = [], 0
    while i < len(buf):
        key, i = varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            v = bytes(buf[i:i + n])
            assert len(v) == n, "cut field %d" % f
            i += n
        elif wt == 1:
            v = int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wt == 5:
            v = int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise AssertionError("wire type %d" % wt)
        out.append((f, v))
    return out


def one(fs, num, default=None):
    vals = [v for f, v in fs if f == num]
    return vals[-1] if vals else default


def load_perfetto(path):
    """Decode the Trace: returns (slices per track {(pid, tid): [(start, end, name, marks)]},
    thread names {(pid, tid): name}, process names {pid: name}, instants [(pid, tid, name, marks)]).
    Checks the incremental state, that every iid was interned before use, that
    every end closes an open slice of its track, and that tracks end empty."""
    with open(path, "rb") as f:
        data = f.read()
    tracks, procs = {}, {}
    names, locs = {}, {}
    open_, last = {}, {}
    slices, instants = {}, []
    first = True
    base = None          # the trace clock's time at the recording's 0 (ClockSnapshot)
    for f, pkt in fields(data):
        assert f == 1, "Trace has only field 1 (packet), got %d" % f
        p = fields(pkt)
        cs = one(p, 6)
        if cs is not None:
            assert base is None and first, "one ClockSnapshot, the first packet"
            clocks = {one(fields(c), 1): one(fields(c), 2) for k, c in fields(cs) if k == 1}
            assert 3 in clocks, "the snapshot has CLOCK_MONOTONIC: %r" % clocks
            primary = one(fields(cs), 2, 6)
            base = clocks[primary]
            continue
        assert base is not None, "a ClockSnapshot comes before the events"
        assert one(p, 10) == 1, "trusted_packet_sequence_id"
        flags = one(p, 13, 0)
        if first:
            assert flags & 1, "the first packet must clear the incremental state"
            first = False
        for idata in [v for k, v in p if k == 12]:
            for k, v in fields(idata):
                d = fields(v)
                if k == 2:
                    names[one(d, 1)] = one(d, 2).decode("utf-8")
                elif k == 4:
                    locs[one(d, 1)] = (one(d, 2).decode(), one(d, 4))
        td = one(p, 60)
        if td is not None:
            d = fields(td)
            uuid = one(d, 1)
            pr, th = one(d, 3), one(d, 4)
            if pr is not None:
                pd = fields(pr)
                procs[uuid] = (one(pd, 1), one(pd, 6).decode())
            if th is not None:
                t = fields(th)
                assert one(d, 5) in procs, "thread track's parent is a process track"
                assert one(t, 1) == procs[one(d, 5)][0], "thread pid = its process's pid"
                tracks[uuid] = (one(t, 1), one(t, 2), one(t, 5).decode())
            elif pr is None:
                # a coroutine stack's track, below its thread's: (pid, "tid stack 0x...")
                parent = one(d, 5)
                assert parent in tracks, "a stack's track's parent is a thread track"
                name = one(d, 2).decode()
                tracks[uuid] = (tracks[parent][0], "%d %s" % (tracks[parent][1], name), name)
        te = one(p, 11)
        if te is None:
            continue
        e = fields(te)
        ts = one(p, 8) - base
        typ, uuid = one(e, 9), one(e, 11)
        assert uuid in tracks, "event on an undeclared track %r" % uuid
        key = tracks[uuid][:2]
        marks = {}
        for k, v in e:
            if k == 4:
                da = fields(v)
                marks[one(da, 10).decode()] = one(da, 6).decode()
        st = open_.setdefault(uuid, [])
        assert ts >= last.get(uuid, 0), "time goes back on track %r" % (key,)
        last[uuid] = ts
        if typ == 1:
            iid = one(e, 10)
            assert iid in names, "name_iid %r used before it was interned" % iid
            loc = one(e, 34)
            assert loc is None or loc in locs, "source_location_iid before interning"
            assert flags & 2 or flags & 1, "a packet using interned data says so"
            st.append((ts, names[iid]))
        elif typ == 2:
            assert st, "slice end with no open slice on track %r" % (key,)
            start, name = st.pop()
            assert ts >= start
            slices.setdefault(key, []).append((start, ts, name, marks))
        elif typ == 3:
            name = names.get(one(e, 10)) or (one(e, 23) or b"").decode()
            instants.append((key, name, marks))
    for uuid, st in open_.items():
        assert not st, "slices left open on %r: %r" % (tracks[uuid], st)
    tnames = {v[:2]: v[2] for v in tracks.values()}
    pnames = {pid: name for pid, name in procs.values()}
    return slices, tnames, pnames, instants, locs, names


# ---- nesting and totals ----

def nest(slices):
    """Check exact nesting of one thread's slices; returns [(start, end, name, args, parent_index)]"""
    order = sorted(range(len(slices)), key=lambda i: (slices[i][0], -slices[i][1]))
    stack, out = [], []
    for i in order:
        s, e, name, args = slices[i]
        while stack and not (out[stack[-1]][0] <= s and e <= out[stack[-1]][1]):
            top = out[stack[-1]]
            assert top[1] <= s, "slices overlap without nesting: %r and %r" % (top[:3], (s, e, name))
            stack.pop()
        out.append((s, e, name, args, stack[-1] if stack else None, [x for x in stack]))
        stack.append(len(out) - 1)
    return out


def profile(per_thread):
    """{name: [calls, total, self]} recomputed from nested slices, as report does"""
    prof = {}
    for key, sl in per_thread.items():
        nodes = nest(sl)
        child = [0] * len(nodes)
        for n in nodes:
            if n[4] is not None:
                child[n[4]] += n[1] - n[0]
        for i, n in enumerate(nodes):
            r = prof.setdefault(n[2], [0, 0, 0])
            r[0] += 1
            dur = n[1] - n[0]
            r[2] += dur - child[i]
            if not any(nodes[a][2] == n[2] for a in n[5]):
                r[1] += dur
    return prof


def report_profile(ctx, *args):
    out = {}
    for r in ctx.csv(*args):
        o = out.setdefault(r["function"], [0, 0, 0])
        o[0] += int(r["calls"])
        o[1] += int(r["total_ns"])
        o[2] += int(r["self_ns"])
    return out


def same_profile(got, want, what):
    assert got == want, "%s differs from report:\n got  %r\n want %r" % (what, sorted(got.items()),
                                                                       sorted(want.items()))
