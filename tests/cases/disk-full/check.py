"""The trace directory lies on a file system too small for the trace (a
4 MiB tmpfs in a mount namespace): the program runs to its end with its own
output; `record` says the disk is full and exits with the program's status;
every event made is recorded or counted as lost for lack of space, and the
events in the file decode as whole calls.  The program's chunks in
record's ring take no blocks of the file until record copies them
(runtime/tracefile.c, event_chunk), so a full disk shows in record's copy,
which leaves 1 MiB free (tool/record-drain.c, chunk_blocks): its session
file is written, and `info` knows how the program ended."""
import os
import re
import subprocess

N = 2000000          # 4,000,002 calls, 8,000,004 events: about 16 MB of trace


def check(ctx):
    if os.geteuid() != 0:
        raise Skip("needs root for a mount namespace")
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        raise Skip("no mount namespaces here")
    w = ctx.work
    mnt = os.path.join(w, "small")
    os.makedirs(mnt, exist_ok=True)
    d = os.path.join(mnt, "trace.data")
    out = os.path.join(w, "disk-full.out")
    # the tmpfs lives as long as the namespace: the trace is read inside it
    script = ("mount -t tmpfs -o size=4m none '%s' && "
              "'%s' record -q -d '%s' -- '%s' %d; echo \"status $?\"; stat -f -c 'free %%a %%S' '%s'; "
              "'%s' info -d '%s'; '%s' report -d '%s' --format csv") % (
        mnt, ctx.fntrace, d, os.path.join(w, "prog"), N, mnt, ctx.fntrace, d, ctx.fntrace, d)
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    o = p.stdout
    open(out, "w").write(o + "\n--- stderr\n" + p.stderr)
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert o.startswith("done %d (" % N), o[:200]
    assert "\nstatus 0\n" in o, o[:400]
    # the room record leaves (its own files took some of the 1 MiB)
    m = re.search(r"^free (\d+) (\d+)$", o, re.M)
    assert m and int(m.group(1)) * int(m.group(2)) >= 768 << 10, o[:400]
    # record names the full disk, once
    assert p.stderr.count("cannot write the trace file in '%s': No space left on device" % d) == 1, p.stderr
    events = int(re.search(r"^events: (\d+)$", o, re.M).group(1))
    lost = int(re.search(r"^lost: (\d+)$", o, re.M).group(1))
    made = 2 * (2 * N + 1)
    assert re.search(r"^  lost: 0 in signal handlers, %d for lack of space, 0 module records$" % lost, o, re.M), o
    assert events + lost == made and lost > made // 2 and events > 100000, (events, lost, made)
    # nothing damaged: the chunks record could not write are missing
    # whole (counted above), none ends inside the file
    assert "status: exited with 0\n" in o, o[:2000]
    m = re.search(r"^  damage: (\d+) bytes skipped, (\d+) bad chunks, (\d+) missing chunks$", o, re.M)
    missing = int(m.group(3)) if m else 0
    assert not m or (m.group(1), m.group(2)) == ("0", "0"), m.group(0)
    assert "truncated" not in p.stderr and "shrank" not in p.stderr, p.stderr
    # the calls in the file: each leaf under its step, but where a missing
    # chunk took one's entry or exit
    calls = {r.split(",")[0]: int(r.split(",")[1]) for r in o.split("\n")
             if r.startswith(("leaf,", "step,", "main,"))}
    assert calls.get("main") == 1, calls
    assert calls["step"] > 50000 and abs(calls["step"] - calls["leaf"]) <= missing + 1, (calls, missing)
