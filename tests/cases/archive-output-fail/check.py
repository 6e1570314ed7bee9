import os, resource, signal, subprocess, time


def listing(d):
    return sorted(os.listdir(d))


def check(ctx):
    w = ctx.work
    ctx.run("record", "-q", "-d", ctx.data, "--", os.path.join(w, "prog"), check=True)
    out = os.path.join(w, "out")
    os.makedirs(out)

    # -o naming a directory: refused before anything is written, one line
    os.makedirs(os.path.join(out, "somedir"))
    for o, cwd in (("somedir", out), (".", out), ("./", out), ("somedir/", out), (out, w)):
        p = ctx.run("archive", "-d", ctx.data, "-o", o, cwd=cwd)
        assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, (o, p)
        assert "option '-o' names a directory" in p.stderr, (o, p.stderr)
        assert listing(out) == ["somedir"] and listing(os.path.join(out, "somedir")) == [], (o, listing(out))
    assert "trace.data.tmp" not in listing(w) and not os.path.exists(out + ".tmp"), listing(w)

    # a name too long for a tar file: the error, and no file
    with open(os.path.join(ctx.data, "x" * 120), "w") as f:
        f.write("x")
    p = ctx.run("archive", "-d", ctx.data, "-o", os.path.join(out, "t.tar"))
    assert p.returncode == 1 and "too long for a tar file" in p.stderr, p
    assert listing(out) == ["somedir"], listing(out)
    os.unlink(os.path.join(ctx.data, "x" * 120))

    # past the file size limit: the write fails (not SIGXFSZ), no file
    def small():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    p = subprocess.run([ctx.fntrace, "archive", "-d", ctx.data, "-o", os.path.join(out, "t.tar")],
                       capture_output=True, text=True, preexec_fn=small)
    assert p.returncode == 1 and "cannot write" in p.stderr, (p.returncode, p.stderr)
    assert listing(out) == ["somedir"], listing(out)

    # killed while it writes: the partial file is removed
    with open(os.path.join(ctx.data, "big"), "wb") as f:
        f.truncate(1 << 30)
    proc = subprocess.Popen([ctx.fntrace, "archive", "-d", ctx.data, "-o", os.path.join(out, "t.tar")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None and listing(out) == ["somedir"]:
        time.sleep(0.001)
    assert proc.poll() is None, "archive ended before it could be killed"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGTERM, proc.returncode
    assert listing(out) == ["somedir"], listing(out)
    os.unlink(os.path.join(ctx.data, "big"))

    # and when it works, only the tar
    p = ctx.run("archive", "-d", ctx.data, "-o", os.path.join(out, "t.tar"), check=True)
    assert listing(out) == ["somedir", "t.tar"], listing(out)
