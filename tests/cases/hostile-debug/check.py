"""Reading a trace is safe whatever the debug information of the programs it
names holds (doc/safety.md, "Reading untrusted traces", issue 11 item 19).
A program can name other files in its ELF: a debug file searched for by
build-id and by name, a dwz alt file (.gnu_debugaltlink), split-DWARF .dwo
files (DW_AT_dwo_name).  Each is made a FIFO here, one way at a time; every
`replay --srcline` must return (a hang fails the case through ctx.run's
timeout), show the calls by name, and say what it did not read:
  - a FIFO among the debug-file candidates is skipped and the search goes
    on: the valid debug file after it gives the lines;
  - a FIFO where libdwfl's search looks for the alt file (.dwz/NAME beside
    the program) is skipped, and the program's own DWARF still gives lines;
  - a FIFO named as the alt file when libdw opens it by itself (a DWARF
    string kept in the alt file, here DW_AT_comp_dir as DW_FORM_strp_sup):
    the program's DWARF is not used, names come from its symbol table;
  - a FIFO as a skeleton unit's .dwo (-gsplit-dwarf): the same."""
import glob
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from exportcheck import varint as uleb   # (DWARF's ULEB128 is protobuf's varint)


def body(text):
    """replay lines without the duration and tid columns"""
    return [l.split("| ", 1)[1] for l in text.splitlines()[1:] if "| " in l]


def without_lines(lines):
    return [l.split(" [", 1)[0] for l in lines]


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, check=True).stdout
    return [l.split(":")[1].strip() for l in out.splitlines() if "Build ID" in l][0]


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    return {data[names + h[0]:data.index(b"\0", names + h[0])].decode(): (h[4], h[5]) for h in hdrs}


def comp_dir_form(data):
    """where the form of the compile unit's DW_AT_comp_dir lies in .debug_abbrev, and the form"""
    off, size = sections(data)[".debug_abbrev"]
    i = off
    while i < off + size:
        code, i = uleb(data, i)
        if not code:
            continue
        tag, i = uleb(data, i)
        i += 1                                  # DW_CHILDREN_*
        while True:
            at, i = uleb(data, i)
            at_form = i
            form, i = uleb(data, i)
            if form == 0x21:                    # DW_FORM_implicit_const
                _, i = uleb(data, i)
            if not at and not form:
                break
            if tag == 0x11 and at == 0x1b:
                return at_form, form
    raise AssertionError("no DW_AT_comp_dir in the compile unit's abbreviation")


def add_altlink(prog, name, bid):
    sec = prog + ".altlink"
    with open(sec, "wb") as f:
        f.write(name.encode() + b"\0" + bid)
    subprocess.run(["objcopy", "--add-section", ".gnu_debugaltlink=" + sec, prog], check=True)


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    orig = prog + ".orig"
    shutil.copy2(prog, orig)
    want = body(ctx.run("replay", "--srcline", check=True).stdout)
    names = without_lines(want)
    assert names == ["main() {", "  sum_squares() {", "    square();", "    square();", "  } /* sum_squares */",
                     "} /* main */"], want
    assert all(" [prog.c:" in l for l in want if "(" in l), want
    bid = build_id(prog)

    # a FIFO among the candidates for the debug file (the first --debug-dir's
    # build-id link): skipped, the second --debug-dir's file gives the lines
    fifo_dir, good_dir = os.path.join(ctx.work, "dbg-fifo"), os.path.join(ctx.work, "dbg-good")
    for root in (fifo_dir, good_dir):
        os.makedirs(os.path.join(root, ".build-id", bid[:2]))
    fifo = os.path.join(fifo_dir, ".build-id", bid[:2], bid[2:] + ".debug")
    os.mkfifo(fifo)
    subprocess.run(["objcopy", "--only-keep-debug", prog,
                    os.path.join(good_dir, ".build-id", bid[:2], bid[2:] + ".debug")], check=True)
    subprocess.run(["strip", "-g", prog], check=True)
    p = ctx.run("replay", "--srcline", "--debug-dir", fifo_dir, "--debug-dir", good_dir, check=True)
    assert body(p.stdout) == want, p.stdout
    assert "'%s' is a FIFO: not read as debug information of 'prog'" % fifo in p.stderr, p.stderr

    # the dwz alt file: libdwfl's search looks for NAME beside the program,
    # then in .dwz/ there
    shutil.copy2(orig, prog)
    add_altlink(prog, "alt.debug", bytes(range(1, 21)))
    os.makedirs(os.path.join(ctx.work, ".dwz"))
    fifo = os.path.join(ctx.work, ".dwz", "alt.debug")
    os.mkfifo(fifo)
    p = ctx.run("replay", "--srcline", check=True)
    assert body(p.stdout) == want, p.stdout
    assert p.stderr.count("fntrace: warning: ") == 1, p.stderr
    assert "'%s' is a FIFO: not read as the dwz file of the debug information of 'prog'" % fifo in p.stderr, \
        p.stderr
    os.remove(fifo)

    # the alt file that libdw opens itself, for a string kept there: the
    # compile unit's directory as DW_FORM_strp_sup (same size as strp)
    shutil.copy2(orig, prog)
    data = bytearray(open(prog, "rb").read())
    at, form = comp_dir_form(data)
    assert form == 0x0e, hex(form)              # DW_FORM_strp (-gdwarf-4)
    data[at] = 0x1d                             # DW_FORM_strp_sup
    open(prog, "wb").write(bytes(data))
    fifo = os.path.join(ctx.work, "alt-fifo")
    os.mkfifo(fifo)
    add_altlink(prog, fifo, bytes(range(1, 21)))
    p = ctx.run("replay", "--srcline", check=True)
    assert body(p.stdout) == names, p.stdout
    assert ("'%s' is a FIFO: the DWARF of 'prog' is not used (libdw would open it as its dwz file); "
            "names come from its symbol table" % fifo) in p.stderr, p.stderr

    # split DWARF: the .dwo named by each skeleton unit
    split = os.path.join(ctx.work, "split")
    os.makedirs(split)
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-" + ctx.opt, "-g", "-gsplit-dwarf", "-finstrument-functions", "-o", "prog",
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")], cwd=split, check=True)
    dwo = glob.glob(split + "/*.dwo")
    assert len(dwo) == 1, os.listdir(split)
    d = os.path.join(split, "trace.data")
    ctx.run("record", "-q", "-d", d, "--", os.path.join(split, "prog"), data=False, check=True)
    p = ctx.run("replay", "--srcline", "-d", d, check=True)
    assert without_lines(body(p.stdout)) == names and " [prog.c:" in p.stdout, p.stdout
    assert "warning" not in p.stderr, p.stderr
    os.remove(dwo[0])
    os.mkfifo(dwo[0])
    p = ctx.run("replay", "--srcline", "-d", d, check=True)
    assert body(p.stdout) == names, p.stdout
    assert ("'%s' is a FIFO: the DWARF of 'prog' is not used (libdw would open it as a split-DWARF file); "
            "names come from its symbol table" % dwo[0]) in p.stderr, p.stderr
