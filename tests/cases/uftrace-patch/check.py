"""-P on an uninstrumented -O2 build of bench's mix: the calls of every
function equal uftrace -P's on the same binary, and whatever one of the two
left alone, fntrace says why."""
import os
import re
import shutil
import subprocess


def uftrace_counts(work, prog, args):
    d = os.path.join(work, "uftrace.data")
    shutil.rmtree(d, ignore_errors=True)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    subprocess.run(["uftrace", "record", "-d", d, "--no-libcall", "-P", ".", prog] + args, check=True,
                   capture_output=True, env=env, timeout=300, cwd=work)
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
    ours = ctx.counts()
    assert ours.get("main") == 1 and len(ours) >= 8, ours
    skipped = dict(re.findall(r"-P skipped (\S+) +0x[0-9a-f]+: (.*)", ctx.run("info", check=True).stdout))
    if not shutil.which("uftrace"):
        print("uftrace-patch: skipped the comparison: uftrace is not installed (apt-get install uftrace)")
        return
    theirs = uftrace_counts(ctx.work, ctx.work + "/prog", ["3000"])
    differing = {n: (ours[n], theirs[n]) for n in set(ours) & set(theirs) if ours[n] != theirs[n]}
    assert not differing, differing
    # what uftrace traced and fntrace did not, fntrace refused with a reason
    missing = set(theirs) - set(ours)
    assert missing <= set(skipped), (missing, skipped)
    assert not set(ours) - set(theirs), (set(ours) - set(theirs), theirs)
