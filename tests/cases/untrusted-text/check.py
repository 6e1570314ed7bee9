"""Text the traced program controls (its command line, thread names, named
scopes, marks) with bytes that are not UTF-8 and control characters:

- svg and html stay well-formed UTF-8: a bad byte becomes U+FFFD, valid
  UTF-8 (caf\\u00e9) passes unchanged, control characters read '?'.
- perfetto's string fields (cmdline, thread names, event names, marks) are
  UTF-8, U+FFFD for the bad bytes: protoc decodes the file without a
  complaint.
- the text views (replay, report, graph, info, stacks, tui) write control
  characters as C escapes (\\n, \\x1b, \\xc2\\x9b for U+009B): a name or a mark
  cannot split a line or send an escape sequence to the terminal.
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
from tmuxscreen import Screen  # noqa: E402

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
    assert [i[1] for i in instants] == ["m\ufffd", "mark\nsplit\x1b]0;title\x07", "c1 \x9b2J"], instants


def raw_controls(text):
    """the control characters a text view let through (line ends aside)"""
    return sorted({c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f})


def check_text_views(ctx):
    outs = {}
    for cmd in (["replay"], ["report", "--threads"], ["graph"], ["info"]):
        out = ctx.run(*cmd, check=True).stdout
        assert not raw_controls(out), (cmd, raw_controls(out), out)
        outs[cmd[0]] = out.splitlines()
    # replay: one line per call and mark, the program's text escaped
    lines = [l.split("| ", 1)[1] for l in outs["replay"][1:]]
    assert len(lines) == len(outs["replay"]) - 1, outs["replay"]
    for want in ("  two\\nlines\\x1b[2J() {", "  } /* two\\nlines\\x1b[2J */", "  /* mark: m\ufffd */",
                 "  /* mark: mark\\nsplit\\x1b]0;title\\x07 */", "  /* mark: c1 \\xc2\\x9b2J */",
                 "  caf\u00e9() {"):
        assert want in lines, (want, lines)
    # report: the thread's name and the scope's
    rep = outs["report"]
    assert any(re.fullmatch(r"# thread \d+ \(\\x1b\[31mred\\nx\), process \d+", l) for l in rep), rep
    assert any(l.endswith("  two\\nlines\\x1b[2J") for l in rep), rep
    assert "+-two\\nlines\\x1b[2J" in [l.split()[-1] for l in outs["graph"] if l.strip()], outs["graph"]
    # info: the command line (record's quoting) and the thread's name
    info = outs["info"]
    assert any(l.startswith("command: ") and l.endswith("prog '\ufffdt\ufffd.txt' 'a\\x1b[1mb'") for l in info), info
    assert any(re.fullmatch(r" +\d+  \\x1b\[31mred\\nx +6  exited", l) for l in info), info

    # stacks, info and replay --fields module with a program file named with
    # control characters: the module's name is the program's to choose too
    odd = os.path.join(ctx.work, "p\x1b[7mrog\n")
    with open(os.path.join(ctx.work, "prog"), "rb") as f, open(odd, "wb") as g:
        g.write(f.read())
    os.chmod(odd, 0o755)
    d = os.path.join(ctx.work, "odd.data")
    ctx.run("record", "-q", "-d", d, "--", odd, data=False, check=True)
    for cmd in (["stacks"], ["info"], ["replay", "--fields", "module"]):
        out = ctx.run(*cmd, "-d", d, check=True).stdout
        assert not raw_controls(out), (cmd, raw_controls(out), out)
        if cmd == ["stacks"]:
            frames = [l.split()[1] for l in out.splitlines() if l.startswith("  #0 ")]
            assert frames == ["p\\x1b[7mrog\\n!worker"] * 2, out
    # the warnings name the module too: the program gone, replay, report and
    # archive say where its names come from, the path escaped
    os.unlink(odd)
    for cmd in (["replay"], ["report"], ["archive", "-o", os.path.join(ctx.work, "odd.tar")]):
        p = ctx.run(*cmd, "-d", d, check=True)
        warns = [l for l in p.stderr.splitlines() if "warning" in l]
        assert warns and not raw_controls(p.stderr), (cmd, raw_controls(p.stderr), p.stderr)
        assert all("p\\x1b[7mrog" in l for l in warns), (cmd, p.stderr)

    # the tui's replay view: the same escaped text on a real terminal
    s = Screen([ctx.fntrace, "tui", "-d", "trace.data"], 120, 40, cwd=ctx.work)
    try:
        s.wait("graph:")
        s.keys("3")
        s.wait("replay: thread 1 of 3")
        screen = "\n".join(s.lines())
        for want in ("two\\nlines\\x1b[2J() {", "/* mark: mark\\nsplit\\x1b]0;title\\x07 */",
                     "/* mark: c1 \\xc2\\x9b2J */"):
            assert want in screen, (want, screen)
        s.keys("q")
        s.wait("exit status 0")
    finally:
        s.close()


def check(ctx):
    check_svg_html(ctx)
    check_perfetto(ctx)
    check_text_views(ctx)
