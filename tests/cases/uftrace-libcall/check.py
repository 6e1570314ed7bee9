import os
import shutil
import subprocess


def uftrace_counts(work, prog, args, opts=()):
    """per-function calls of `uftrace record` with its defaults (library calls
    on) and opts"""
    d = os.path.join(work, "uftrace.data")
    shutil.rmtree(d, ignore_errors=True)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    subprocess.run(["uftrace", "record", "-d", d] + list(opts) + [prog] + args, check=True, capture_output=True, env=env,
                   timeout=300, cwd=work)
    out = subprocess.run(["uftrace", "report", "-d", d, "--no-pager"], check=True, capture_output=True,
                         text=True, env=env, timeout=300).stdout
    counts, seen = {}, False
    for line in out.splitlines():
        if line.strip().startswith("===="):
            seen = True
            continue
        tok = line.split()
        if seen and len(tok) >= 6 and tok[4].isdigit() and not tok[5].startswith("linux:"):
            counts[" ".join(tok[5:])] = counts.get(" ".join(tok[5:]), 0) + int(tok[4])
    return counts


def check(ctx):
    if not shutil.which("uftrace"):
        raise Skip("uftrace is not installed (apt-get install uftrace)")
    ours = ctx.counts()
    theirs = uftrace_counts(ctx.work, ctx.work + "/prog", ["3000"])
    # the same functions with the same counts, library calls included
    libs = {n for n in theirs if n not in ("main",) and not n.startswith(("run_mix", "bench_"))}
    assert ours == theirs, "fntrace %s\nuftrace %s\nonly fntrace: %s\nonly uftrace: %s\ndiffering: %s" % (
        ours, theirs, set(ours) - set(theirs), set(theirs) - set(ours),
        {n: (ours[n], theirs[n]) for n in set(ours) & set(theirs) if ours[n] != theirs[n]})
    assert {"qsort", "malloc", "free"} <= libs, sorted(libs)
