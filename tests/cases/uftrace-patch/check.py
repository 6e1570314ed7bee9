"""-P on an uninstrumented -O2 build of bench's mix: the calls of every
function equal uftrace -P's on the same binary, and whatever one of the two
left alone, fntrace says why."""
import importlib.util
import os
import re
import shutil


def uftrace_counts(work, prog, args):
    """uftrace-libcall's counter, with -P . and no library calls"""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "uftrace-libcall", "check.py")
    spec = importlib.util.spec_from_file_location("uftrace_libcall_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.uftrace_counts(work, prog, args, ("--no-libcall", "-P", "."))


def check(ctx):
    ours = ctx.counts()
    assert ours.get("main") == 1 and len(ours) >= 8, ours
    skipped = dict(re.findall(r"-P skipped (\S+) +0x[0-9a-f]+: (.*)", ctx.run("info", check=True).stdout))
    if not shutil.which("uftrace"):
        raise Skip("uftrace is not installed (apt-get install uftrace): nothing to compare with")
    theirs = uftrace_counts(ctx.work, ctx.work + "/prog", ["3000"])
    differing = {n: (ours[n], theirs[n]) for n in set(ours) & set(theirs) if ours[n] != theirs[n]}
    assert not differing, differing
    # what uftrace traced and fntrace did not, fntrace refused with a reason
    missing = set(theirs) - set(ours)
    assert missing <= set(skipped), (missing, skipped)
    assert not set(ours) - set(theirs), (set(ours) - set(theirs), theirs)
