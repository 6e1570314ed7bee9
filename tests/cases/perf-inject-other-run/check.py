import os, re, subprocess
import perfcheck as P

# perf recorded around one run, the trace of another (two runs of the same
# program): no sample of perf.data is of a thread of the trace, so there is
# nothing to rewrite.  perf-inject said "0 frames rewritten, 0 of 0 samples
# with a swapped frame not matched", exit 0, and wrote an unchanged copy,
# which looks like a success; perf-script, on the same input, says every
# sample had no matching calls.  It is an error now: status 1, a line that
# says why, nothing written.  The right trace still works.


def check(ctx):
    perf, why = P.usable(ctx)
    if why:
        raise Skip(why)
    work = ctx.work
    prog = os.path.join(work, "prog")
    data = os.path.join(work, "perf.data")
    run_a, run_b = os.path.join(work, "a.data"), os.path.join(work, "b.data")
    p = P.record(ctx, perf, data, run_a, prog)
    assert p.returncode == 0 and "done" in p.stdout, (p.stdout, p.stderr)
    ctx.run("record", "-d", run_b, "--", prog, check=True)

    out = os.path.join(work, "b.real")
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", run_b, "-i", data, "-o", out], capture_output=True,
                       text=True, cwd=work, timeout=120)
    assert p.returncode == 1, ("another run's trace was taken for this one", p.returncode, p.stderr)
    m = re.match(r"^fntrace: perf-inject: none of the (\d+) samples in '%s' is of a thread of the trace '%s' "
                 r"while it ran: nothing to rewrite, nothing written \(record with 'perf record -k mono -g -- "
                 r"fntrace record \.\.\.', perf around the same run as the trace\)\n$"
                 % (re.escape(data), re.escape(run_b)), p.stderr)
    assert m and int(m.group(1)) >= 100, p.stderr
    assert not os.path.exists(out), "a copy was written"

    # the same with perf-script: every sample unmatched, a hint
    text = subprocess.run([perf, "script", "-i", data], capture_output=True, text=True, cwd=work,
                          timeout=120).stdout
    p = subprocess.run([ctx.fntrace, "perf-script", "-d", run_b], input=text, capture_output=True, text=True,
                       cwd=work, timeout=120)
    m = re.search(r"^fntrace: perf-script: (\d+) of \1 samples had no matching calls in the trace \(", p.stderr,
                  re.M)
    assert p.returncode == 0 and m, p.stderr

    # the run's own trace
    out = os.path.join(work, "a.real")
    p = subprocess.run([ctx.fntrace, "perf-inject", "-d", run_a, "-i", data, "-o", out], capture_output=True,
                       text=True, cwd=work, timeout=120)
    m = re.search(r"^fntrace: perf-inject: wrote '.*': \d+ samples read, (\d+) frames rewritten, (\d+) of (\d+) "
                  r"samples with a swapped frame not matched$", p.stderr, re.M)
    # as in perf-script: the samples taken in fntrace's own code under a
    # swapped frame stay unmatched by design (doc/perf-script.md), and at
    # most 2 others or 0.1 % (3 of 4,440 failed the case under load)
    own = len([s for s in P.samples(text) if P.own_code(s[1])])
    unmatched, swapped = int(m.group(2)), int(m.group(3))
    assert p.returncode == 0 and m and int(m.group(1)) >= 100 and unmatched <= 2 + own + swapped // 1000, \
        (own, p.stderr)
    assert os.path.exists(out)
