import re


def check(ctx):
    assert ctx.record.stdout == "1 2 3 child=0 vfork=7\n", ctx.record.stdout
    info = ctx.run("info", check=True).stdout
    # the parent, the forked child, and the vfork child, whose _exit() is
    # its one event
    assert "processes: 3\n" in info, info
    out = ctx.run("replay", check=True).stdout
    assert "(no return" not in out.replace("(no return: trace ended)", ""), out
    # the same program built with -finstrument-functions: the same calls
    d = ctx.work + "/cyg.data"
    ctx.run("record", "-d", d, "--", ctx.work + "/cyg", check=True)
    rows = ctx.run("report", "--format", "csv", "-d", d, check=True).stdout.splitlines()[1:]
    cyg = {r.split(",")[0]: int(r.split(",")[1]) for r in rows}
    pg = ctx.counts()
    pg.pop("__cxa_atexit", None)    # -pg's start-up code (gcrt1.o) registers _mcleanup from the executable
    assert cyg == pg, (cyg, pg)
    assert pg["fork"] == 1 and pg["waitpid"] == 2 and pg["qsort"] == 2 and pg["vfork"] == 1 and pg["_exit"] == 2, pg
    # vfork is a zero-length call in the parent; each _exit stays open to
    # the end of its child's trace, which is where its process ended
    assert re.search(r"^ *\d+\.\d+ (?:us|ms| s) \[ *\d+\] \|   vfork\(\);$", out, re.M), out
    assert out.count("} /* _exit (no return: trace ended) */") == 2, out
