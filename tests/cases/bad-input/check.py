import os, glob, random
def check(ctx):
    w = ctx.work
    p = ctx.run("record", "-d", w + "/x.data", "--", w + "/no-such-prog", data=False)
    assert p.returncode == 127 and "no-such-prog" in p.stderr and "No such file" in p.stderr, p
    open(w + "/plain.txt", "w").write("hello\n")
    p = ctx.run("record", "-d", w + "/x.data", "--", w + "/plain.txt", data=False)
    assert p.returncode == 126 and "plain.txt" in p.stderr, p
    p = ctx.run("record", "-d", w + "/x.data", "--", w, data=False)
    assert p.returncode == 126, p
    p = ctx.run("record", "--frobnicate", "--", "true", data=False)
    assert p.returncode == 2 and "--frobnicate" in p.stderr, p
    p = ctx.run("record", data=False)
    assert p.returncode == 2 and "no program" in p.stderr, p
    p = ctx.run("record", "--chunk-size", "3", "--", "true", data=False)
    assert p.returncode == 2 and "--chunk-size" in p.stderr, p
    for cmd in ("replay", "report", "info"):
        p = ctx.run(cmd, "--bogus")
        assert p.returncode == 2 and "--bogus" in p.stderr, (cmd, p)
        p = ctx.run(cmd, "-d", w + "/missing.data")
        assert p.returncode == 1 and "missing.data" in p.stderr and "fntrace record" in p.stderr, p
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    # a directory that is not a trace (before: info printed an empty
    # summary with exit 0, export wrote an empty file, replay blamed the build)
    nt = w + "/not-a-trace"; os.makedirs(nt, exist_ok=True)
    want = "fntrace: '%s' is not a trace directory (it has no .fnt file and no session file; " \
           "'fntrace record -d DIR' writes one)\n" % nt
    for args in (["replay"], ["report"], ["info"], ["graph"], ["stacks"],
                 ["export", "--format", "chrome", "-o", w + "/nt.json"]):
        p = ctx.run(*args, "-d", nt, data=False)
        assert p.returncode == 1 and p.stderr == want, (args, p.returncode, p.stderr)
    assert not os.path.exists(w + "/nt.json")
    p = ctx.run("frob", data=False)
    assert p.returncode == 2 and "frob" in p.stderr, p
    good = ctx.counts()
    assert good["f"] == 20000, good
    fnt = glob.glob(ctx.data + "/*.fnt")[0]
    size = os.path.getsize(fnt)
    assert size > 4096 + 3 * 16384, size
    # a file cut inside its first chunk, before any event: no build hint
    d = w + "/cut.data"; os.makedirs(d)
    with open(fnt, "rb") as f:
        open(d + "/1-0.fnt", "wb").write(f.read()[:4096 + 30])
    p = ctx.run("replay", "-d", d)
    assert p.returncode == 1 and "file is truncated inside chunk 0" in p.stderr and \
        "fntrace: no function events could be read from '%s': its files are cut or damaged (as said above)\n" % d in p.stderr and "-finstrument-functions" not in p.stderr, p.stderr
    d = w + "/empty.data"; os.makedirs(d)
    open(d + "/1-0.fnt", "w").close()
    p = ctx.run("replay", "-d", d)
    assert p.returncode == 1 and "1-0.fnt" in p.stderr and "empty" in p.stderr, p
    open(d + "/1-0.fnt", "w").write("x" * 5000)
    p = ctx.run("info", "-d", d)
    assert p.returncode == 1 and "not a fntrace" in p.stderr, p
    with open(fnt, "rb") as f:
        data = f.read()
    # truncated in the middle of the third chunk: everything before is decoded
    d = w + "/trunc.data"; os.makedirs(d)
    open(d + "/1-0.fnt", "wb").write(data[:4096 + 2 * 16384 + 5000])
    p = ctx.run("report", "-d", d, "--format", "csv")
    assert p.returncode == 0 and "truncated" in p.stderr, p
    calls = {l.split(",")[0]: int(l.split(",")[1]) for l in p.stdout.splitlines()[1:]}
    assert 0 < calls["f"] < 20000 and "main" in calls, calls
    r = ctx.run("replay", "-d", d)
    assert r.returncode == 0 and "(no return: trace ended)" in r.stdout, r.stderr
    # corrupt bytes inside the second chunk: the other chunks still decode
    d = w + "/corrupt.data"; os.makedirs(d)
    bad = bytearray(data)
    rnd = random.Random(7)
    for i in range(200):
        bad[4096 + 16384 + 300 + rnd.randrange(8000)] = rnd.randrange(256)
    open(d + "/1-0.fnt", "wb").write(bytes(bad))
    p = ctx.run("report", "-d", d, "--format", "csv")
    assert p.returncode == 0 and "damaged" in p.stderr, p
    calls = {l.split(",")[0]: int(l.split(",")[1]) for l in p.stdout.splitlines()[1:]}
    assert calls.get("f", 0) > 15000, calls
    for cmd in ("replay", "info"):
        assert ctx.run(cmd, "-d", d).returncode == 0
    bad = bytearray(data); bad[8] = 99
    open(d + "/1-0.fnt", "wb").write(bytes(bad))
    p = ctx.run("replay", "-d", d)
    assert p.returncode == 1 and "version 99" in p.stderr, p
