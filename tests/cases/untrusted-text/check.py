"""Text the traced program controls (its command line, thread names, named
scopes, marks) with bytes that are not UTF-8 and control characters:

- svg and html stay well-formed UTF-8: a bad byte becomes U+FFFD, valid
  UTF-8 (caf\\u00e9) passes unchanged, control characters read '?'.
"""
import os
import re
import xml.etree.ElementTree as ET

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


def check(ctx):
    check_svg_html(ctx)
