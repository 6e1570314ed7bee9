import json, os, subprocess

# A forked child inherits its parent's open frames.  Read-time -F/-N must
# treat them as the record-time filters do: each filter recorded at record
# time and applied at read time to the unfiltered trace gives the same
# replay, report, graph and export.


def record(ctx, name, *args):
    d = os.path.join(ctx.work, "rec-" + name)
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, *args, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, (args, p.stderr)
    return d


def tree(ctx, d, *args):
    out = ctx.run("replay", "-d", d, *args, check=True).stdout
    return [l.split("| ", 1)[1] for l in out.splitlines() if "| " in l and not l.startswith("#")]


def counts(ctx, d, *args):
    return sorted((r["function"], r["calls"]) for r in ctx.csv("-d", d, *args))


def graph(ctx, d, *args):
    out = ctx.run("graph", "-d", d, *args, check=True).stdout
    # the calls and the function column (times differ between runs)
    return [" ".join(l.split(None, 5)[4:]) for l in out.splitlines() if l.strip() and l.split()[0][0].isdigit()]


def chrome(ctx, d, *args):
    out = os.path.join(ctx.work, "export.json")
    ctx.run("export", "-d", d, "-f", "chrome", "-o", out, *args, check=True)
    with open(out) as f:
        doc = json.load(f)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    return sorted((e.get("name"), e.get("ph")) for e in evs if e.get("ph") in ("B", "E", "X"))


def check(ctx):
    for name, args in (("F-spawn", ["-F", "spawn"]), ("F-main", ["-F", "main"]),
                       ("F-child", ["-F", "child_work", "-F", "before"]),
                       # the parent writes nothing: the child's chunks (it takes
                       # record's ring) went to the parent's file, and were lost
                       ("F-child-only", ["-F", "child_work"]), ("N-spawn", ["-N", "spawn"]),
                       ("N-child", ["-N", "child_work"]), ("N-hidden", ["-N", "hidden"]),
                       ("FN", ["-F", "spawn", "-N", "hidden"]), ("FD", ["-F", "main", "-D", "2"])):
        d = record(ctx, name, *args)
        want, got = tree(ctx, d), tree(ctx, ctx.data, *args)
        assert got == want, (name, "replay", want, got)
        want, got = counts(ctx, d), counts(ctx, ctx.data, *args)
        assert got == want, (name, "report", want, got)
        # (graph's -D counts levels from the top of its tree, not from the
        # threads' first frames: it is not the recording's -D)
        if "-D" not in args:
            want, got = graph(ctx, d), graph(ctx, ctx.data, *args)
            assert got == want, (name, "graph", want, got)
        want, got = chrome(ctx, d), chrome(ctx, ctx.data, *args)
        assert got == want, (name, "export", want, got)

    # Views that go process by process (graph) take the processes in pid
    # order, also when the parent's pid has fewer digits than its
    # children's: the same trace with its files renamed 9998-0.fnt,
    # 10001-0.fnt... shows the same graph.  (Sorted as strings, the
    # children came first: this case failed whenever a run's pids crossed
    # 9999 or 99999.)
    import re
    import shutil
    ren = os.path.join(ctx.work, "renamed.data")
    shutil.rmtree(ren, ignore_errors=True)
    shutil.copytree(ctx.data, ren)
    files = sorted((f for f in os.listdir(ren) if re.match(r"\d+-\d+\.fnt$", f)), key=lambda f: int(f.split("-")[0]))
    assert len(files) == 3, files
    for f, pid in zip(files, (9998, 10001, 10003)):
        os.rename(os.path.join(ren, f), os.path.join(ren, "%d-%s" % (pid, f.split("-", 1)[1])))
    assert graph(ctx, ren) == graph(ctx, ctx.data), (graph(ctx, ren), graph(ctx, ctx.data))
    assert graph(ctx, ren)[0] == "1 main", graph(ctx, ren)
    # and after a wrap of the machine's pids, the children's pids lower
    # than their parent's (32767, 300, 301): processes go in the order they
    # were made, not by pid (this case failed so once, the child's root
    # 'tail' listed before 'main')
    for args in ((), ("-N", "child_work")):
        shutil.rmtree(ren)
        shutil.copytree(ctx.data, ren)
        for f, pid in zip(files, (32767, 300, 301)):
            os.rename(os.path.join(ren, f), os.path.join(ren, "%d-%s" % (pid, f.split("-", 1)[1])))
        assert graph(ctx, ren, *args) == graph(ctx, ctx.data, *args), (args, graph(ctx, ren, *args))
    assert graph(ctx, ren)[0] == "1 main", graph(ctx, ren)
    # info lists them in that order too: parent, child, grandchild
    procs = [[l for l in ctx.run("info", "-d", d, check=True).stdout.splitlines() if l.startswith("process ")]
             for d in (ren, ctx.data)]
    assert len(procs[1]) == 3 and procs[0] == procs[1], procs
    parents = [int(re.search(r"\(parent (\d+)\)", l).group(1)) for l in procs[1]]
    pids = [int(l.split()[1]) for l in procs[1]]
    assert parents[1:] == pids[:-1], procs

    # A child's start converts with its family's widest usable clock fit,
    # not its own: a grandchild whose own fit is 16 times off (its end
    # sample's ns 16 times nearer its start; the parent's fit is the
    # widest) still comes after its parent.  (With each process's own fit
    # it came first; so could a child forked a moment after its parent,
    # late in a long run, by two fits a little apart.)
    import struct
    skew = os.path.join(ctx.work, "skewed.data")
    shutil.rmtree(skew, ignore_errors=True)
    shutil.copytree(ctx.data, skew)
    hdrs = {}
    for f in files:
        with open(os.path.join(skew, f), "rb") as fh:
            b = fh.read(4096)
        pid, ppid = struct.unpack_from("<II", b, 24)
        hdrs[pid] = (f, ppid)
    child = [p for p, (f, pp) in hdrs.items() if pp in hdrs and hdrs[pp][1] not in hdrs][0]
    grand = [p for p, (f, pp) in hdrs.items() if pp == child][0]
    with open(os.path.join(skew, hdrs[grand][0]), "r+b") as fh:
        b = bytearray(fh.read(4096))
        cal0_mono = struct.unpack_from("<Q", b, 64)[0]
        end_mono = struct.unpack_from("<Q", b, 112)[0]
        assert end_mono > cal0_mono + 16000, (end_mono, cal0_mono)   # it exited by _exit: end fields set
        struct.pack_into("<Q", b, 112, cal0_mono + (end_mono - cal0_mono) // 16)
        fh.seek(0)
        fh.write(b)
    procs = [l for l in ctx.run("info", "-d", skew, check=True).stdout.splitlines() if l.startswith("process ")]
    assert [int(l.split()[1]) for l in procs][1:] == [child, grand], (procs, child, grand)
