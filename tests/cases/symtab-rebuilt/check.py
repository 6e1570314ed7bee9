import re
import glob, os, random, stat, subprocess


def body(text):
    return [l.split("| ", 1)[-1] for l in text.splitlines()]


def views(ctx):
    """what a user reads: replay with lines, the stacks, the report's names and files"""
    rep = ctx.run("replay", "--srcline", check=True)
    stk = ctx.run("stacks", check=True)
    csv = ctx.run("report", "--format", "csv", "-s", "name", check=True)
    rows = sorted(",".join(c for i, c in enumerate(l.split(",")) if i in (0, 1, 7, 9))
                  for l in csv.stdout.splitlines())
    return [l.split("| ", 1)[-1] for l in rep.stdout.splitlines()], stk.stdout, rows, rep.stderr + stk.stderr


def check(ctx):
    prog = os.path.join(ctx.work, "prog")
    src = os.path.join(os.path.dirname(__file__), "prog.c")
    symdir = os.path.join(ctx.data, "symtab")
    # record saved one private table per module with events, named by build-id
    out = subprocess.run(["readelf", "-n", prog], capture_output=True, text=True, check=True).stdout
    bid = [l.split(":")[1].strip() for l in out.splitlines() if "Build ID" in l][0]
    table = os.path.join(symdir, bid + ".sym")
    assert os.path.isfile(table), os.listdir(symdir)
    assert stat.S_IMODE(os.stat(symdir).st_mode) == 0o700 and stat.S_IMODE(os.stat(table).st_mode) == 0o600
    before = views(ctx)
    rep, stk, rows, err = before
    assert rep[1].startswith("main() { [prog.c:27]") and "leaf() { [prog.c:9] [from prog.c:24]" in "\n".join(rep) and \
        "      /* stack #1  prog!middle (prog.c:24) */" in rep, rep
    assert "prog!leaf (prog.c:11)" in stk and "prog!middle (prog.c:24)" in stk, stk
    assert "warning" not in err, err

    # rebuilt: other code, another build-id; everything reads as before, with one warning
    cc = "gcc" if ctx.compiler == "gcc" else "clang"
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-DREBUILT", "-I" + os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(src)))), "include"),
        "-o", prog, src], check=True)
    after = views(ctx)
    assert after[:3] == before[:3], (before, after)
    warns = [l for l in after[3].splitlines() if "warning" in l]
    assert len(warns) == 2 and "rebuilt since" in warns[0] and "saved in the trace" in warns[0], after[3]

    # deleted: the same
    os.unlink(prog)
    gone = views(ctx)
    assert gone[:3] == before[:3], (before, gone)
    assert "cannot open" in gone[3] and "saved in the trace" in gone[3], gone[3]

    # a damaged table: one warning line (or the fallback names), never a crash
    good = open(table, "rb").read()
    damage = [good[:40], good[:-1], good + b"x", good[:56] + b"\xff\xff\xff\x0f" + good[60:],
              good[:68] + b"\x01\x00\x00\x00" + good[72:], good[:-1] + b"x"]
    rnd = random.Random(12)
    for _ in range(40):
        b = bytearray(good)
        for _ in range(rnd.randint(1, 8)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        damage.append(bytes(b))
    for bad in damage:
        with open(table, "wb") as f:
            f.write(bad)
        # refused (prog+0x names, the reason in the warning) or, where the
        # damage keeps the table valid, used (some names may be off)
        p = ctx.run("replay", "--srcline")
        assert p.returncode == 0, p
        warns = [l for l in p.stderr.splitlines() if "prog" in l]
        assert len(warns) == 1 and ("saved symbol table" in warns[0] or "saved in the trace" in warns[0]), p.stderr
        ctx.run("stacks")
        ctx.run("report")
    with open(table, "wb") as f:
        f.write(good[:100])
    p = ctx.run("replay", check=True)
    assert "prog+0x" in p.stdout and "main(" not in p.stdout and "prog!main" not in p.stdout, p.stdout
    err = [l for l in p.stderr.splitlines() if "/prog" in l]
    assert len(err) == 1 and "corrupt saved symbol table" in err[0], p.stderr

    # --no-symtab saves nothing
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-I" + os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(src)))), "include"),
        "-o", prog, src], check=True)
    d2 = os.path.join(ctx.work, "nosym.data")
    ctx.run("record", "-q", "--no-symtab", "-d", d2, "--", prog, check=True)
    assert not os.path.exists(os.path.join(d2, "symtab")), os.listdir(d2)

    # -q makes no walk of the events (the summary line's): the table then has
    # every name of the program but no lines
    d3 = os.path.join(ctx.work, "quiet.data")
    ctx.run("record", "-q", "--callsite", "-d", d3, "--", prog, check=True)
    quiet_before = ctx.run("replay", "-d", d3, check=True).stdout
    # ...of the program only: libc and the runtime define the hooks without
    # being built with them (libc's whole table, 180 KB, was saved into
    # every trace recorded with -q)
    out = subprocess.run(["readelf", "-n", prog], capture_output=True, text=True, check=True).stdout
    bid3 = [l.split(":")[1].strip() for l in out.splitlines() if "Build ID" in l][0]
    assert os.listdir(os.path.join(d3, "symtab")) == [bid3 + ".sym"], os.listdir(os.path.join(d3, "symtab"))
    os.unlink(prog)
    p = ctx.run("replay", "-d", d3, check=True)
    assert "saved in the trace" in p.stderr, p.stderr
    # (-q saves names, not lines: a captured stack's frames lose their file:line)
    noline = lambda t: [re.sub(r" \([^()]*:\d+\)( \*/)", r"\1", l) for l in body(t)]
    assert noline(p.stdout) == noline(quiet_before), (quiet_before, p.stdout)
    p = ctx.run("replay", "--srcline", "-d", d3, check=True)
    assert "qsort() {" in p.stdout and "leaf() {" in p.stdout and "[prog.c:" not in p.stdout, p.stdout

    # a table left half-written (record killed while saving) is fntrace's own:
    # the next record into the directory moves the trace to DIR.old as usual
    open(os.path.join(d3, "symtab", ".%s.sym.tmp" % bid), "wb").write(b"FNTSYMS1")
    subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-I" + os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(src)))), "include"),
        "-o", prog, src], check=True)
    p = ctx.run("record", "-q", "-d", d3, "--", prog)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert ".%s.sym.tmp" % bid in os.listdir(os.path.join(d3 + ".old", "symtab"))

    # a program linked without a build-id: nothing to check a rebuild
    # against, so a rebuild after the recording gets a warning (its names
    # were wrong, silently)
    nb = os.path.join(ctx.work, "prog-nobid")
    build = lambda *defs: subprocess.run([cc, "-" + ctx.opt, "-g", "-finstrument-functions", "-Wl,--build-id=none",
                                          *defs, "-I" + os.path.join(os.path.dirname(os.path.dirname(
                                              os.path.dirname(os.path.dirname(src)))), "include"), "-o", nb, src],
                                         check=True)
    build()
    d = os.path.join(ctx.work, "nobid.data")
    ctx.run("record", "-q", "-d", d, "--", nb, check=True)
    p = ctx.run("replay", "-d", d, "--no-pager", check=True)
    assert "warning" not in p.stderr, p.stderr
    os.utime(nb, (os.stat(nb).st_atime, os.stat(nb).st_mtime + 5))    # rebuilt after it
    build("-DREBUILT")
    os.utime(nb, (os.stat(nb).st_atime, os.stat(nb).st_mtime + 5))
    p = ctx.run("replay", "-d", d, "--no-pager", check=True)
    assert "fntrace: warning: '%s' has no build-id to tell whether it is the traced build, and it was modified " \
           "after the recording: its names may be wrong (link it with -Wl,--build-id)" % nb in p.stderr, p.stderr
