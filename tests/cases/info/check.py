import os
import re
import subprocess


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def check(ctx):
    me = dict(l.split(" ", 1) for l in ctx.record.stdout.splitlines())
    pid, wtid, base = me["pid"], me["worker_tid"], int(me["base"], 16)
    info = ctx.run("info", check=True).stdout
    lines = info.splitlines()
    prog = os.path.join(ctx.work, "prog")

    def has(pattern):
        assert any(re.search(pattern, l) for l in lines), "no line matching %r in:\n%s" % (pattern, info)

    has(r"^command: .*prog first second$")
    has(r"^status: exited with 5$")
    has(r"^clock: ")
    has(r"^processes: 1$")
    has(r"^events: 18$")                  # main: 2 + 2 * 2, worker: 2 + 5 * 2
    has(r"^lost: 0$")
    has(r"^process %s \(parent \d+\): %s$" % (pid, re.escape(prog)))
    has(r"^\s+threads: 2$")
    has(r"^\s+%s\s+prog\s+6\s" % pid)      # the main thread's tid is the pid
    has(r"^\s+%s\s+info-worker\s+12\s" % wtid)
    # the executable: where it was loaded and its build-id
    mods = [l.split() for l in lines if l.startswith("    0x")]
    exe = [m for m in mods if m[2] == prog]
    assert len(exe) == 1, info
    assert int(exe[0][0], 16) == base, (exe, hex(base))
    assert exe[0][3] == build_id(prog), (exe, build_id(prog))
    # the runtime and libc are modules too
    assert any(m[2].endswith("/libfntrace.so") for m in mods), info
    assert any(re.search(r"/libc\.so\.6$", m[2]) for m in mods), info
    for m in mods:
        if os.path.exists(m[2]):
            assert m[3] == build_id(m[2]), m
