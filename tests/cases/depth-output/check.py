"""Output linear in the events at any depth (issue 15): a 2,000,000-deep
direct recursion is one frame in graph, folded, svg and html (with the
number of calls it made to itself), and the 20,000-deep mutual recursion
even/odd is cut at 4096 frames by a "[deeper than 4096 frames]" node, so
no view writes more than a few MB for a trace of 4 M events (before: graph
wrote 600 MB for a 20,000-deep recursion, and 76 GB for 2 M), and every
view runs in 64 MB of address space (they needed 96-255 MB)."""
import os
import resource
import signal
import subprocess

DEEP = "[deeper than 4096 frames]"


def check(ctx):
    counts = ctx.counts()
    assert counts["down"] == 2000001 and counts["even"] == 10001 and counts["odd"] == 10000, counts
    report = {r["function"]: r for r in ctx.csv()}

    # graph: down is one node holding every call, its total the outermost's
    p = ctx.run("graph", check=True)
    lines = p.stdout.splitlines()
    down = [l for l in lines if l.endswith("+-down [recursive: 2000000 of the calls were made by itself]")]
    assert len(down) == 1 and down[0].split()[4] == "2000001", down
    # even/odd: 4096 levels under deep (main's thread function), then the cut
    names = [l.split("+-")[-1] for l in lines[3:]]
    assert names.count("even") + names.count("odd") == 4096 - 1 - 1, (names.count("even"), names.count("odd"))
    assert names.count(DEEP) == 1, names[-3:]
    assert len(p.stdout) < 30 * 1024 * 1024, len(p.stdout)

    # --no-collapse is the old tree, cut at 4096 frames as well
    p = ctx.run("graph", "--no-collapse", check=True)
    names = [l.split("+-")[-1] for l in p.stdout.splitlines()[3:]]
    assert names.count("down") == 4094 and names.count(DEEP) == 2, (names.count("down"), names.count(DEEP))

    # folded: a line per tree node; no line is longer than 4096 frames
    out = os.path.join(ctx.work, "out.folded")
    ctx.run("export", "-q", "-f", "folded", "--value", "calls", "-o", out, check=True)
    rows = {}
    with open(out) as f:
        for line in f:
            stack, value = line.rstrip("\n").rsplit(" ", 1)
            rows[stack] = int(value)
    assert rows["deep;down"] == 2000001, [k for k in rows if "down" in k]
    assert max(k.count(";") + 1 for k in rows) == 4096, max(k.count(";") + 1 for k in rows)
    deepest = [k for k in rows if k.endswith(DEEP)]
    assert len(deepest) == 1 and rows[deepest[0]] == 20001 - 4094, (len(deepest), rows.get(deepest[0]))
    assert sum(rows.values()) == sum(counts.values()), (sum(rows.values()), sum(counts.values()))
    assert os.path.getsize(out) < 60 * 1024 * 1024, os.path.getsize(out)

    # svg and html stay small; svg names the collapsed frame once
    for fmt, limit in (("svg", 4), ("html", 8)):
        out = os.path.join(ctx.work, "out." + fmt)
        ctx.run("export", "-q", "-f", fmt, "-o", out, check=True)
        size = os.path.getsize(out)
        assert size < limit * 1024 * 1024, (fmt, size)
        with open(out) as f:
            text = f.read()
        assert text.count('data-n="down"') == 1, (fmt, text.count('data-n="down"'))
    assert int(report["down"]["calls"]) == 2000001

    # memory: the views keep the open frames on a bounded stack
    # (tool/framestack.c), 2,000,000 of them open at once here: each view
    # runs in 64 MB of address space (ulimit -v; before, they needed 220-255
    # MB; report keeps its own open calls, 16 bytes each, on a bounded stack too).
    # Not under the sanitizers, which reserve terabytes.
    if "san" not in os.path.basename(os.path.dirname(ctx.fntrace)):
        for args, mb in ((["replay", "-D", "3"], 64), (["graph"], 64), (["report"], 64),
                         (["export", "-q", "-f", "folded", "-o", "-"], 64),
                         (["export", "-q", "-f", "svg", "-o", "-"], 64),
                         (["export", "-q", "-f", "html", "-o", "-"], 64),
                         (["export", "-q", "-f", "chrome", "-o", "-"], 64),
                         (["export", "-q", "-f", "perfetto", "-o", "-"], 64)):
            limit = mb << 20
            p = subprocess.run([ctx.fntrace] + args + ["-d", ctx.data], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, cwd=ctx.work, timeout=120,
                               preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
            assert p.returncode == 0, (args, "in %d MB" % mb, p.stderr)

    # the open frames spill to a temporary file: when it cannot grow (a
    # full disk; here a file size limit that cuts a write short), the
    # message names the real cause (before: the short write left errno as
    # an earlier call had set it, "Inappropriate ioctl for device")
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (12345, 12345))
    p = subprocess.run([ctx.fntrace, "graph", "-d", ctx.data], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, cwd=ctx.work, timeout=120, preexec_fn=small_files)
    assert p.returncode == 1 and p.stderr == \
        "fntrace: cannot write the call stack to a temporary file in $TMPDIR: File too large\n", p.stderr
