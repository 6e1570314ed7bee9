"""Text the traced program controls (its command line, thread names, named
scopes, marks) with bytes that are not UTF-8 and control characters:

- svg and html stay well-formed UTF-8: a bad byte becomes U+FFFD, valid
  UTF-8 (caf\\u00e9) passes unchanged, control characters read '?'.
- perfetto's string fields (cmdline, thread names, event names, marks) are
  UTF-8, U+FFFD for the bad bytes: protoc decodes the file without a
  complaint.
"""
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import exportcheck as X  # noqa: E402

# the command line, as the title shows it (record's shell quoting)
CMDLINE = "prog '\ufffdt\ufffd.txt' 'a?[1mb'"


def check_svg_html(ctx):
    out = os.path.join(ctx.work, "t.svg")
    ctx.run("export", "-q", "-f", "svg", "-o", out, check=True)
    with open(out, "rb") as f:
        data = f.read()
    root = ET.fromstring(data)              # well-formed XML, or it raises
    texts = [e.text for e in root.iter() if e.tag.endswith("}text")]
    assert texts[0].endswith("/" + CMDLINE), texts[0]
    frames = {e.get("data-n") for e in root.iter() if e.get("data-n")}
    assert {"sc\ufffdne", "caf\u00e9", "two?lines?[2J"} <= frames, frames

    out = os.path.join(ctx.work, "t.html")
    ctx.run("export", "-q", "-f", "html", "-o", out, check=True)
    with open(out, "rb") as f:
        html = f.read().decode("utf-8")     # strict: raises on invalid UTF-8
    quoted = CMDLINE.replace("'", "&#39;")
    title = re.search(r"<title>(.*?)</title>", html).group(1)
    assert title.endswith("/" + quoted + " - fntrace"), title
    assert re.search(r"<h1>(.*?)</h1>", html).group(1).endswith("/" + quoted), html[:2000]
    assert 'data-n="caf\u00e9"' in html and 'data-n="sc\ufffdne"' in html


def check_perfetto(ctx):
    out = os.path.join(ctx.work, "t.pftrace")
    ctx.run("export", "-q", "-f", "perfetto", "-o", out, check=True)
    if shutil.which("protoc"):
        proto = os.path.join(HERE, "..", "..", "perfetto", "trace_subset.proto")
        with open(out, "rb") as f:
            p = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(proto), "--decode=perfetto.protos.Trace",
                                proto], stdin=f, capture_output=True)
        assert p.returncode == 0 and b"invalid UTF-8" not in p.stderr, p.stderr.decode(errors="replace")[:2000]
        text = p.stdout.decode()
        cmdline = re.findall(r'cmdline: "(.*)"', text)
        assert cmdline[1:] == ["\\357\\277\\275t\\357\\277\\275.txt", "a\\033[1mb"], cmdline
    # the strings decode as strict UTF-8 (exportcheck), with U+FFFD where the bytes were bad
    slices, tnames, pnames, instants, locs, names = X.load_perfetto(out)
    assert {"te\ufffd", "\x1b[31mred\nx"} <= set(tnames.values()), tnames
    assert {"sc\ufffdne", "caf\u00e9", "two\nlines\x1b[2J"} <= set(names.values()), names
    assert [i[1] for i in instants] == ["m\ufffd", "mark\nsplit\x1b]0;title\x07"], instants


def check(ctx):
    check_svg_html(ctx)
    check_perfetto(ctx)
