"""Reading a trace from someone else is safe (doc/safety.md, "Reading
untrusted traces").  Copies of the recorded directory are made hostile, one
way each; every view must return (a hang fails the case through ctx.run's
timeout), show what is readable, and name what it refused:
  - a FIFO as the .fnt, as the file named with -d, as `session`, and
    `session` as a symlink to /dev/zero (issue 11, item 18);
  - a module path naming a FIFO or a device: the reader must not even open
    it (an inotify watch sees every open), and a FIFO named prog.debug or
    in a --debug-dir must not block the debug-file search (item 19);
  - a chunk header whose depth is INT32_MAX: depths count from 0, the
    replay is the same as the original's (item 21)."""
import ctypes
import glob
import os
import shutil
import struct
import subprocess

IN_OPEN = 0x20


def body(text):
    """replay lines without the duration and tid columns"""
    return [l.split("| ", 1)[1] for l in text.splitlines()[1:] if "| " in l]


def copy_trace(ctx, name):
    d = os.path.join(ctx.work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(ctx.data, d)
    return d, glob.glob(d + "/*.fnt")[0]


def errors(p):
    return [l for l in p.stderr.splitlines() if l.startswith("fntrace: ")]


class OpenWatch:
    """inotify IN_OPEN on one path: did anything open it?"""

    def __init__(self, path):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, ctypes.get_errno()
        wd = self.libc.inotify_add_watch(self.fd, path.encode(), IN_OPEN)
        assert wd >= 0, (path, ctypes.get_errno())

    def opened(self):
        try:
            return len(os.read(self.fd, 65536)) > 0
        except BlockingIOError:
            return False

    def close(self):
        os.close(self.fd)


def check(ctx):
    full = ctx.run("replay", check=True).stdout
    want = body(full)
    assert want and want[0].startswith("main()") and sum("leaf()" in l for l in want) == 3, full

    # -- 18: FIFOs and devices where trace files should be
    d = os.path.join(ctx.work, "fifo.data")
    os.makedirs(d)
    os.mkfifo(os.path.join(d, "1-0.fnt"))
    p = ctx.run("replay", "-d", d)
    assert p.returncode == 1 and len(errors(p)) == 1, p
    assert "1-0.fnt" in p.stderr and "not a regular file (a FIFO)" in p.stderr, p.stderr
    p = ctx.run("info", "-d", os.path.join(d, "1-0.fnt"))
    assert p.returncode == 1 and errors(p) == ["fntrace: '%s/1-0.fnt': not a regular file (a FIFO)" % d], p

    d, fnt = copy_trace(ctx, "beside-fifo.data")
    os.mkfifo(os.path.join(d, "99-0.fnt"))
    os.symlink("/dev/zero", os.path.join(d, "98-0.fnt"))
    os.remove(os.path.join(d, "session"))
    os.mkfifo(os.path.join(d, "session"))
    p = ctx.run("replay", "-d", d, check=True)
    assert body(p.stdout) == want, p.stdout
    assert "99-0.fnt': not a regular file (a FIFO); file skipped" in p.stderr, p.stderr
    assert "98-0.fnt': a symbolic link, not followed; file skipped" in p.stderr, p.stderr
    assert "session': not a regular file (a FIFO); ignored" in p.stderr, p.stderr
    # replay --follow polls the session to know when the recording ends
    p = ctx.run("replay", "--follow", "-d", d)
    assert p.returncode == 1 and errors(p)[-1] == ("fntrace: '%s/session': not a regular file (a FIFO) "
                                                  "(not a session written by 'fntrace record')" % d), p
    os.remove(os.path.join(d, "session"))
    os.symlink("/dev/zero", os.path.join(d, "session"))
    p = ctx.run("info", "-d", d, check=True)
    assert "session': a symbolic link, not followed; ignored" in p.stderr, p.stderr
    assert "processes: 1" in p.stdout, p.stdout

    # -- 19: module paths naming a FIFO or a device are never opened
    prog = os.path.join(ctx.work, "prog")
    d, fnt = copy_trace(ctx, "modules.data")
    data = open(fnt, "rb").read()
    old = prog.encode() + b"\0"
    # the module record (the header holds the path too, as exe and argv[0])
    at = data.index(old, 4096)
    assert data.count(old, 4096) == 1, data.count(old, 4096)

    def module_path(new):
        return data[:at] + new + b"\0" * (len(old) - len(new)) + data[at + len(old):]
    fifo = os.path.join(ctx.work, "fifo")         # as long as .../prog
    os.mkfifo(fifo)
    open(fnt, "wb").write(module_path(fifo.encode()))
    watch = OpenWatch(fifo)
    p = ctx.run("replay", "-d", d, check=True)
    assert not watch.opened(), "the reader opened the FIFO %s named as a module" % fifo
    watch.close()
    assert "cannot use '%s': not a regular file (a FIFO)" % fifo in p.stderr, p.stderr
    # the symbol table record saved (DIR/symtab) names the calls instead
    assert body(p.stdout) == want and "saved in the trace" in p.stderr, (p.stdout, p.stderr)
    # ... unless it is a FIFO or a link to a device: never opened, named as such
    sym = glob.glob(d + "/symtab/*.sym")
    assert len(sym) == 1, os.listdir(d + "/symtab")
    os.remove(sym[0])
    os.mkfifo(sym[0])
    watch = OpenWatch(sym[0])
    p = ctx.run("replay", "-d", d, check=True)
    assert not watch.opened(), "the reader opened the FIFO %s named as a saved symbol table" % sym[0]
    watch.close()
    assert "not a regular file (a FIFO)" in p.stderr and "fifo+0x" in p.stdout, p
    os.remove(sym[0])
    os.symlink("/dev/zero", sym[0])
    p = ctx.run("replay", "-d", d, check=True)
    assert "cannot be used" in p.stderr and "fifo+0x" in p.stdout, p
    # a device (/dev/ptmx allocates a pty when opened): the same refusal
    ptmx = b"/dev/ptmx"
    open(fnt, "wb").write(module_path(ptmx))
    p = ctx.run("replay", "-d", d, check=True)
    assert "cannot use '/dev/ptmx': not a regular file (a character device)" in p.stderr, p.stderr

    # debug files: a FIFO where the search looks (next to the program, or in
    # a --debug-dir) is skipped, the program's own symbols still name calls
    out = subprocess.run(["readelf", "-n", prog], capture_output=True, text=True, check=True).stdout
    bid = [l.split(":")[1].strip() for l in out.splitlines() if "Build ID" in l][0]
    subprocess.run(["strip", "-g", prog], check=True)     # same build-id, symbols, no DWARF
    os.mkfifo(prog + ".debug")
    p = ctx.run("replay", "--srcline", check=True)
    assert body(p.stdout) == want, p.stdout
    assert "'%s.debug' is a FIFO: not read as debug information of 'prog'" % prog in p.stderr, p.stderr
    os.remove(prog + ".debug")
    dbg = os.path.join(ctx.work, "dbg", ".build-id", bid[:2], bid[2:] + ".debug")
    os.makedirs(os.path.dirname(dbg))
    os.mkfifo(dbg)
    p = ctx.run("replay", "--srcline", "--debug-dir", os.path.join(ctx.work, "dbg"), check=True)
    assert body(p.stdout) == want, p.stdout
    assert "'%s' is a FIFO: not read as debug information of 'prog'" % dbg in p.stderr, p.stderr

    # -- 21: an impossible depth in a chunk header
    d, fnt = copy_trace(ctx, "depth.data")
    img = bytearray(open(fnt, "rb").read())
    cs = struct.unpack_from("<I", img, 16)[0]
    patched = 0
    for off in range(4096, len(img) - 64 + 1, cs):
        magic, ctype = struct.unpack_from("<IB", img, off)
        seq = struct.unpack_from("<I", img, off + 16)[0]
        if magic == 0x434E5446 and ctype == 1 and seq == 0:
            struct.pack_into("<i", img, off + 20, 0x7FFFFFFF)
            patched += 1
    assert patched == 1, patched
    open(fnt, "wb").write(bytes(img))
    for cmd in (["replay"], ["report", "--format", "csv"], ["graph", "main"]):
        p = ctx.run(*cmd, "-d", d, check=True)
        assert "impossible call depth (2147483647); depths counted from 0" in p.stderr, (cmd, p.stderr)
        assert "runtime error" not in p.stderr, p.stderr
        if cmd == ["replay"]:
            assert body(p.stdout) == want, p.stdout
