"""record ends with one line on stderr, as perf record does: where the
trace went, how many events, its size on disk, bytes per event and what
was lost; the numbers agree with `fntrace info`.  --quiet leaves it out, a
program that records nothing gets the hint instead, and export says what it
wrote."""
import os
import re
import subprocess


def human(n):
    """fntrace's sizes: decimal units, one decimal"""
    if n < 1000:
        return "%d B" % n
    if n < 999950:              # (1000.0 KB reads 1.0 MB)
        return "%.1f KB" % (n / 1e3)
    if n < 999950000:
        return "%.1f MB" % (n / 1e6)
    return "%.2f GB" % (n / 1e9)


def check(ctx):
    last = ctx.record.stderr.splitlines()[-1]
    info = ctx.run("info", check=True).stdout
    disk = int(re.search(r"^bytes: \d+ in files, (\d+) on disk", info, re.M).group(1))
    assert re.search(r"^events: 12002$", info, re.M), info
    want = "fntrace: wrote '%s': 12.0 K events, %s (%.1f B/event), 0 lost" % (ctx.data, human(disk), disk / 12002)
    assert last == want, (last, want)
    assert ctx.record.stdout == "9000\n", ctx.record.stdout

    # a million events and more read in M (before: "2000.0 K events")
    d = os.path.join(ctx.work, "big.data")
    p = subprocess.run([ctx.fntrace, "record", "-d", d, "--", os.path.join(ctx.work, "prog"), "1000000"],
                       capture_output=True, text=True, cwd=ctx.work)
    assert p.returncode == 0 and re.search(r"^fntrace: wrote '.*': 2\.0 M events, ", p.stderr, re.M), p.stderr

    # --quiet: nothing on stderr
    d = os.path.join(ctx.work, "quiet.data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work)
    assert p.returncode == 0 and p.stderr == "" and p.stdout == "9000\n", p
    assert ctx.counts("-d", d) == {"main": 1, "leaf": 6000}

    # a program without hooks: the hint, no summary
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")
    plain = os.path.join(ctx.work, "plain")
    subprocess.run(["gcc", "-o", plain, src], check=True)
    p = subprocess.run([ctx.fntrace, "record", "-d", os.path.join(ctx.work, "plain.data"), "--", plain],
                       capture_output=True, text=True, cwd=ctx.work)
    assert p.returncode == 0 and p.stderr.splitlines() == [
        "fntrace: no function events were recorded: was '%s' built with -finstrument-functions? "
        "(without rebuilding, -P FUNC patches the functions FUNC names)" % plain], p

    # export: what it wrote, the format and the size, on one line; --quiet and -o - print nothing
    out = os.path.join(ctx.work, "t.json")
    p = ctx.run("export", "-d", ctx.data, "-f", "chrome", "-o", out, check=True)
    size = os.path.getsize(out)
    assert size > 100000, size
    assert p.stderr == "fntrace: wrote '%s' (chrome, %s)\n" % (out, human(size)), p.stderr
    p = ctx.run("export", "-d", ctx.data, "-f", "folded", "-o", "-", check=True)
    assert p.stderr == "" and "main;leaf 6000" not in p.stdout and p.stdout.startswith("main"), p
