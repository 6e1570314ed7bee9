import os
import resource
import shutil
import subprocess
import stat
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import exportcheck as X


def check(ctx):
    want = X.report_profile(ctx)
    csv_threads = ctx.csv("--threads")
    workers = {"worker-%d" % n: n for n in (1, 2, 3)}

    # chrome: valid JSON whatever the names, exact nesting, report's numbers
    events = X.load_chrome(X.export(ctx, "chrome"))
    slices, tnames, pnames, instants = X.chrome_threads(events)
    assert not instants, instants
    X.same_profile(X.profile(slices), want, "chrome export")
    assert len(slices) == 4, slices.keys()
    assert list(pnames.values()) == ["prog"], pnames
    assert sorted(tnames.values()) == ["prog", "worker-1", "worker-2", "worker-3"], tnames
    for key, sl in slices.items():
        name = tnames[key]
        got = sorted(s[2] for s in sl)
        if name in workers:
            n = workers[name]
            assert got.count("work") == 10 * n and got.count("fact") == n + 2, (name, got)
            assert got.count("run") == 1 and len(got) == 10 * n + n + 3, (name, got)
        else:
            assert "work" not in got and "main" in got, got
        for s in sl:      # file:line of each function
            assert s[3]["src"].rsplit(":", 1)[0].endswith("export-threads/prog.cc"), s
            assert "end" not in s[3], s
    # per thread, against report --threads
    for key, sl in slices.items():
        rows = [r for r in csv_threads if int(r["tid"]) == key[1]]
        assert {r["function"]: int(r["calls"]) for r in rows} == \
            {k: v[0] for k, v in X.profile({key: sl}).items()}, key
    lines = {s[2]: s[3]["src"] for sl in slices.values() for s in sl}
    assert lines["work"].endswith("prog.cc:9") and lines["fact"].endswith("prog.cc:10"), lines
    assert 'operator"" _q' in lines, lines.keys()

    # perfetto: same slices, names and numbers
    pslices, ptnames, ppnames, pinst, locs, names = X.load_perfetto(X.export(ctx, "perfetto"))
    assert not pinst, pinst
    X.same_profile(X.profile(pslices), want, "perfetto export")
    assert ptnames == tnames, (ptnames, tnames)
    assert ppnames == pnames, (ppnames, pnames)
    assert sorted(pslices) == sorted(slices)
    for key in slices:     # the very same calls, to the nanosecond
        assert sorted(s[:3] for s in pslices[key]) == sorted(s[:3] for s in slices[key]), key
    for key, sl in pslices.items():
        rows = [r for r in csv_threads if int(r["tid"]) == key[1]]
        assert {r["function"]: int(r["calls"]) for r in rows} == \
            {k: v[0] for k, v in X.profile({key: sl}).items()}, key
    assert any(f.endswith("export-threads/prog.cc") and l == 9 for f, l in locs.values()), locs
    # an export that will be large counts the events first, by a walk of
    # its own; the export is the same byte for byte (that walk left each
    # thread with its last name, which perfetto wrote before its own walk:
    # a worker's first descriptor said worker-N, not prog then worker-N)
    first = X.export(ctx, "perfetto")
    with open(first, "rb") as f:
        plain = f.read()
    counted = os.path.join(ctx.work, "counted.pftrace")
    p = ctx.run("export", "-f", "perfetto", "-o", counted, env=dict(os.environ, FNTRACE_EXPORT_WARN="1"), check=True)
    assert p.stderr.startswith("fntrace: warning: '%s' will be about" % counted), p.stderr
    with open(counted, "rb") as f:
        assert f.read() == plain, "perfetto export changed by the counting walk"

    # filters apply: --tid, -F, -N, -D give report's calls and totals (not
    # its self times: report subtracts hidden callees, a slice shows them as
    # part of its caller's own time)
    two = lambda prof: {k: v[:2] for k, v in prof.items()}
    tid = str(next(k[1] for k, n in tnames.items() if n == "worker-2"))
    for args in (["--tid", tid], ["-F", "fact"], ["-N", "fact"], ["-D", "1"], ["-F", "run", "-D", "2"]):
        w = two(X.report_profile(ctx, *args))
        got = two(X.profile(X.chrome_threads(X.load_chrome(X.export(ctx, "chrome", *args)))[0]))
        X.same_profile(got, w, "chrome export %s" % " ".join(args))
        got = two(X.profile(X.load_perfetto(X.export(ctx, "perfetto", *args))[0]))
        X.same_profile(got, w, "perfetto export %s" % " ".join(args))

    # the write is atomic: a failed export leaves nothing, and never touches the target
    missing = os.path.join(ctx.work, "no-such-dir", "x.json")
    p = ctx.run("export", "-d", ctx.data, "-f", "chrome", "-o", missing)
    assert p.returncode == 1 and not os.path.exists(os.path.dirname(missing)), p
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("fntrace: ") and "no-such-dir" in p.stderr, p.stderr
    ro = os.path.join(ctx.work, "ro")
    os.makedirs(ro, exist_ok=True)
    target = os.path.join(ro, "x.pftrace")
    with open(target, "w") as f:
        f.write("keep me\n")
    # a read-only directory: as root, the export runs as nobody (root writes
    # anywhere); a path through a plain file fails the same way for anyone
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    try:
        runner = []
        if os.geteuid() == 0:
            runner = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] \
                if shutil.which("setpriv") else None
            # nobody must be able to read the trace (a checkout under /root is not)
            if runner and subprocess.run(runner + [ctx.fntrace, "info", "-d", ctx.data],
                                         capture_output=True).returncode != 0:
                runner = None
        if runner is not None:
            p = subprocess.run(runner + [ctx.fntrace, "export", "-d", ctx.data, "-f", "perfetto", "-o", target],
                               capture_output=True, text=True)
            assert p.returncode == 1 and p.stderr.count("\n") == 1, p
            assert p.stderr == "fntrace: cannot create '%s': Permission denied\n" % target, p.stderr
        blocked = os.path.join(ctx.work, "afile")
        open(blocked, "w").close()
        p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", os.path.join(blocked, "x.pftrace"))
        assert p.returncode == 1 and p.stderr.count("\n") == 1 and "Not a directory" in p.stderr, p
    finally:
        os.chmod(ro, stat.S_IRWXU)
    with open(target) as f:
        assert f.read() == "keep me\n"
    assert os.listdir(ro) == ["x.pftrace"], os.listdir(ro)
    # a trace that cannot be read, and a write that fails halfway (a 1 KiB
    # file size limit): the existing target stays as it was, and no
    # temporary file is left beside it
    p = ctx.run("export", "-d", os.path.join(ctx.work, "nothing"), "-f", "chrome", "-o", target)
    assert p.returncode == 1, p
    for fmt in ("chrome", "perfetto"):
        p = subprocess.run([ctx.fntrace, "export", "-d", ctx.data, "-f", fmt, "-o", target],
                           capture_output=True, text=True, preexec_fn=lambda: resource.setrlimit(
                               resource.RLIMIT_FSIZE, (1024, 1024)))
        assert p.returncode == 1 and p.stderr.count("\n") == 1, p
        assert "File too large" in p.stderr and target in p.stderr, p.stderr
    with open(target) as f:
        assert f.read() == "keep me\n"
    assert os.listdir(ro) == ["x.pftrace"], os.listdir(ro)
    # a successful export replaces it
    X.load_perfetto(X.export(ctx, "perfetto", out=target))
    assert os.listdir(ro) == ["x.pftrace"], os.listdir(ro)
