import os


def check(ctx):
    w, d = ctx.work, ctx.data
    prog = os.path.join(w, "prog")
    fnt = sorted(f for f in os.listdir(d) if f.endswith(".fnt"))
    assert len(fnt) == 1 and os.listdir(os.path.join(d, "snapshot-first")) == fnt, os.listdir(d)
    # after a snapshot: the trace moves to DIR.old, snapshot and all
    p = ctx.run("record", "-q", "-d", d, "--", prog, data=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert sorted(os.listdir(d + ".old")) == sorted([".lock", "session", "snapshot-first", "symtab"] + fnt)
    assert ctx.counts("-d", d + ".old") == {"main": 1, "step": 5}
    assert ctx.counts("-d", d) == {"main": 1, "step": 5}
    # after an interrupted start that left .session.tmp (and a trace with a
    # snapshot in DIR.old, which goes)
    open(os.path.join(d, ".session.tmp"), "w").write("fntrace-session 1\ncommand=cut short\n")
    fnt2 = sorted(f for f in os.listdir(d) if f.endswith(".fnt"))
    p = ctx.run("record", "-q", "-d", d, "--", prog, data=False)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert sorted(os.listdir(d + ".old")) == sorted([".lock", ".session.tmp", "session", "snapshot-first", "symtab"] + fnt2)
    assert ctx.counts("-d", d) == {"main": 1, "step": 5}
    assert ".session.tmp" not in os.listdir(d)
    # and a file that is not fntrace's still stops it, naming the file
    open(os.path.join(d, "notes.txt"), "w").write("mine\n")
    p = ctx.run("record", "-q", "-d", d, "--", prog, data=False)
    assert p.returncode == 1 and p.stderr == "fntrace: '%s' exists and holds 'notes.txt', which fntrace did " \
        "not make; choose another directory with -d\n" % d, p.stderr
    assert open(os.path.join(d, "notes.txt")).read() == "mine\n"
