def check(ctx):
    assert "built with -finstrument-functions" in ctx.record.stderr, ctx.record.stderr
    for cmd in ("replay", "report", "info"):
        p = ctx.run(cmd)
        assert "no function events were recorded" in p.stderr and "-finstrument-functions" in p.stderr, (cmd, p.stderr)
    assert ctx.run("replay").returncode == 1
    assert "status: exited with 0" in ctx.run("info").stdout
    # -P on it: its main is patched where it is long enough (gcc -O0: a frame),
    # and refused as too short where it is `xor %eax,%eax; ret` (clang -O2)
    import os
    import re
    d = os.path.join(ctx.work, "p.data")
    p = ctx.run("record", "-d", d, "-P", "*", "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0, (p.returncode, p.stderr)
    m = re.search(r"fntrace: -P patched (\d+) functions?, skipped (\d+)", p.stderr)
    assert m, p.stderr
    info = ctx.run("info", "-d", d, check=True).stdout
    if ctx.build == "clang-O2":
        assert m.group(1) == "0", p.stderr
        assert re.search(r"-P skipped main +0x[0-9a-f]+: too short", info), info
        # (not the hint to try -P, which was given)
        assert "fntrace: no function events were recorded: none of the functions of '%s' that -P selected " \
            "and could patch ran ('nm' lists the names it selects from; 'fntrace info', the ones it skipped " \
            "and why)\n" % os.path.join(ctx.work, "prog") in p.stderr, p.stderr
    else:
        assert m.group(1) == "1", p.stderr
        assert ctx.counts("-d", d) == {"main": 1}
