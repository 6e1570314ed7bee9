"""export -o FILE.gz writes the export gzip-compressed (Perfetto and
speedscope read gzip): decompressed, it is byte for byte the plain export,
for every format.  An export that will pass the size limit (1 GB; set lower
here with FNTRACE_EXPORT_WARN) is announced before it is written, with the
estimate and what to do instead; the estimate is within 2x of the truth."""
import gzip
import os
import re


def check(ctx):
    for fmt, ext in (("perfetto", "pftrace"), ("chrome", "json"), ("folded", "folded"), ("svg", "svg"),
                     ("html", "html")):
        plain = os.path.join(ctx.work, "t." + ext)
        packed = plain + ".gz"
        ctx.run("export", "-d", ctx.data, "-f", fmt, "-o", plain, "-q", check=True)
        p = ctx.run("export", "-d", ctx.data, "-f", fmt, "-o", packed, check=True)
        with open(plain, "rb") as f:
            want = f.read()
        with gzip.open(packed, "rb") as f:
            got = f.read()
        assert got == want, "%s: the .gz holds %d bytes, the plain export %d" % (fmt, len(got), len(want))
        size = os.path.getsize(packed)
        assert p.stderr.startswith("fntrace: wrote '%s' (%s, " % (packed, fmt)), p.stderr
        if fmt in ("perfetto", "chrome"):
            assert size * 3 < len(want), (fmt, size, len(want))   # it is compressed

    # the size warning, before writing
    env = dict(os.environ, FNTRACE_EXPORT_WARN="1000000")
    out = os.path.join(ctx.work, "big.pftrace")
    p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", out, env=env, check=True)
    first = p.stderr.splitlines()[0]
    m = re.fullmatch(r"fntrace: warning: '%s' will be about ([\d.]+) MB \(perfetto takes ~22 bytes per event\): "
                     r"--format perfetto is the smallest, '-o %s.gz' compresses it, and --since/--until export a "
                     r"part of the trace" % (re.escape(out), re.escape(out)), first)
    assert m, first
    actual = os.path.getsize(out)
    assert actual / 2 < float(m.group(1)) * 1e6 < actual * 2, (m.group(1), actual)
    # no warning when compressed, or under the limit
    p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", out + ".gz", env=env, check=True)
    assert "warning" not in p.stderr, p.stderr
    p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", out, "-q", check=True)
    assert p.stderr == "", p.stderr
    # nor into a pipe or a device, which take no room (it warned, and
    # counted the events to, for -o /dev/null)
    for target in ("-", "/dev/null"):
        p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", target, "-q", env=env, check=True)
        assert p.stderr == "", (target, p.stderr)
    # --since/--until: the estimate is the window's share of the run (it
    # warned about the whole trace's size for a 1 % window before)
    info = ctx.run("info", check=True).stdout
    dur_ms = float(re.search(r"^duration: ([\d.]+) ms", info, re.M).group(1))
    p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", out, "--since", "%.3fms" % (dur_ms / 2),
                "--until", "%.3fms" % (dur_ms / 2 + dur_ms / 100), env=env, check=True)
    assert "warning" not in p.stderr, p.stderr
    p = ctx.run("export", "-d", ctx.data, "-f", "perfetto", "-o", out, "--since", "0ns", env=env, check=True)
    assert p.stderr.startswith("fntrace: warning: '%s' will be about" % out), p.stderr
