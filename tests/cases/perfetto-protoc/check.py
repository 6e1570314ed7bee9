"""The perfetto export decodes with protoc against the subset of Perfetto's
.proto files that fntrace writes (tests/perfetto/trace_subset.proto, with
Perfetto's field numbers): no field is unknown, a ClockSnapshot comes
first and relates BOOTTIME, MONOTONIC and REALTIME, the first sequence
packet clears the incremental state, every name is interned before it is
used, begins and ends balance on every track, and the timestamps are
absolute CLOCK_BOOTTIME: the program's calls fall between the boot-clock
readings taken just before and after it ran, so the file lines up with a
kernel trace of the same run."""
import os
import re
import shutil
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PROTO = os.path.join(ROOT, "tests", "perfetto", "trace_subset.proto")


def packets(text):
    """protoc's text format -> a list of packets, each a list of (path, value)"""
    out, path = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.endswith("{"):
            name = s[:-1].strip()
            if not path and name == "packet":
                out.append([])
            path.append(name)
        elif s == "}":
            path.pop()
        else:
            k, v = s.split(":", 1)
            out[-1].append(("/".join(path[1:] + [k]), v.strip()))
    return out


def check(ctx):
    if not shutil.which("protoc"):
        print("perfetto-protoc: protoc is not installed (Debian protobuf-compiler): skipped")
        return
    d = os.path.join(ctx.work, "t.data")
    before = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    ctx.run("record", "-q", "-d", d, "--", os.path.join(ctx.work, "prog"), data=False, check=True)
    after = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    out = os.path.join(ctx.work, "t.pftrace")
    ctx.run("export", "-q", "-d", d, "-f", "perfetto", "-o", out, check=True)
    with open(out, "rb") as f:
        p = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(PROTO), "--decode=perfetto.protos.Trace",
                            PROTO], stdin=f, capture_output=True)
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode()
    unknown = [l for l in text.splitlines() if re.match(r"^\s*\d+\s*[:{]", l)]
    assert not unknown, "fields not in Perfetto's numbering: %r" % unknown[:5]

    pk = packets(text)
    clocks = dict()
    cur = None
    for k, v in pk[0]:
        if k == "clock_snapshot/clocks/clock_id":
            cur = int(v)
        elif k == "clock_snapshot/clocks/timestamp":
            clocks[cur] = int(v)
    assert set(clocks) == {1, 3, 6}, pk[0]
    assert ("sequence_flags", "1") in pk[1], pk[1]

    names, stacks, begins = set(), {}, []
    counts = {}
    for packet in pk[1:]:
        f = dict(packet)
        assert f.get("trusted_packet_sequence_id") == "1", packet
        for k, v in packet:
            if k == "interned_data/event_names/iid":
                names.add(int(v))
        if "track_event/type" not in f:
            continue
        ts, typ, track = int(f["timestamp"]), f["track_event/type"], f["track_event/track_uuid"]
        st = stacks.setdefault(track, [])
        if typ == "TYPE_SLICE_BEGIN":
            iid = int(f["track_event/name_iid"])
            assert iid in names, "name_iid %d used before it was interned" % iid
            st.append(iid)
            begins.append(ts)
            counts[iid] = counts.get(iid, 0) + 1
        elif typ == "TYPE_SLICE_END":
            assert st, "an end with no open slice on track %s" % track
            st.pop()
    assert all(not s for s in stacks.values()), stacks
    assert sorted(counts.values()) == [1, 1, 2, 8], counts    # main, worker, mid x2, leaf x8
    # absolute boot-clock times: inside the run
    assert before <= min(begins) and max(begins) <= after, (before, min(begins), max(begins), after)
    # the snapshot: BOOTTIME and MONOTONIC of the same moment, REALTIME too
    boot_now, mono_now = time.clock_gettime_ns(time.CLOCK_BOOTTIME), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert abs((clocks[6] - clocks[3]) - (boot_now - mono_now)) < 1000000, (clocks, boot_now - mono_now)
    assert abs(clocks[1] - time.time_ns()) < 600 * 10**9, clocks
