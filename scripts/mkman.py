#!/usr/bin/env python3
"""Make the man pages from the commands' own --help and a little prose.

usage: scripts/mkman.py FNTRACE OUTDIR [--check]

fntrace(1) comes from `fntrace --help` and doc/man/fntrace.in; each
fntrace-CMD(1) from `fntrace CMD --help` and doc/man/fntrace-CMD.in when it
exists.  The --help text is the one source of truth for options: the OPTIONS
section is that text set in roff, so a page can never lack an option that
--help has.  The .in files add what a help screen has no room for
(examples, environment, see also), in sections that start with a line
"== NAME"; a line indented by two spaces or more is set verbatim.

With --check nothing is written: it exits 1 and names each page that differs
from what would be made (tests/cases/man-pages runs this; `make man` fixes).
"""
import os
import re
import subprocess
import sys

DATE = "2026-11"


def esc(text):
    """roff-escape running text; `code` becomes bold."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    return text


def line_out(text):
    """a roff text line: never starts with a control character"""
    return "\\&" + text if text[:1] in (".", "'") else text


def help_of(fntrace, cmd):
    args = [fntrace] + ([cmd] if cmd else []) + ["--help"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("mkman: %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


OPT = re.compile(r"^ {1,8}(-\S.*?)(?: {2,}(\S.*))?$")
CONT = re.compile(r"^ {9,}(\S.*)$")


METAVAR = re.compile(r"^(-\S*|[A-Z][A-Z0-9_@=\[\],.|/]*,?|\[\S*\],?)$")


def split_spec(spec, desc):
    """an option line whose text follows after one space only: the option
    part is the leading dashes and upper-case value names"""
    if desc:
        return [spec, desc]
    words = spec.split(" ")
    n = 0
    while n < len(words) and METAVAR.match(words[n]):
        n += 1
    return [" ".join(words[:n]), " ".join(words[n:])]


def join_wrapped(text, more):
    """a help line wrapped inside a hyphenated word ("comma-" / "separated")"""
    if re.search(r"[a-z]-$", text):
        return text + more
    return (text + " " + more).strip()


def parse_help(text):
    """-> (synopsis, [blocks]); a block is ("para", [lines]),
    ("verbatim", [lines]) or ("options", [(spec, desc)])."""
    lines = text.rstrip("\n").split("\n")
    synopsis = lines[0][len("usage: "):] if lines[0].startswith("usage: ") else lines[0]
    blocks, cur = [], []
    for l in lines[1:] + [""]:
        if l.strip():
            cur.append(l)
            continue
        if cur:
            blocks.append(cur)
        cur = []
    out = []
    for b in blocks:
        if OPT.match(b[0]) and b[0].lstrip().startswith("-"):
            opts = []
            for l in b:
                m = OPT.match(l)
                c = CONT.match(l)
                if m and l.lstrip().startswith("-"):
                    opts.append(split_spec(m.group(1).strip(), m.group(2) or ""))
                elif c and opts:
                    opts[-1][1] = join_wrapped(opts[-1][1], c.group(1))
                elif opts:
                    opts[-1][1] = (opts[-1][1] + " " + l.strip()).strip()
            out.append(("options", opts))
        elif all(l.startswith("  ") for l in b[1:]) and b[0].startswith("  "):
            out.append(("verbatim", b))
        elif b[0].endswith(":") and len(b) > 1 and all(l.startswith("  ") for l in b[1:]):
            out.append(("para", [b[0]]))
            out.append(("verbatim", b[1:]))
        else:
            out.append(("para", [l.strip() for l in b]))
    return synopsis, out


def render_blocks(blocks, opts_heading=True):
    r = []
    first_opts = True
    for kind, body in blocks:
        if kind == "para":
            r.append(".PP")
            r += [line_out(esc(l)) for l in body]
        elif kind == "verbatim":
            r.append(".PP")
            r.append(".nf")
            r += [line_out(esc(l)) for l in body]
            r.append(".fi")
        else:
            if opts_heading and first_opts:
                r.append(".SH OPTIONS")
            first_opts = False
            for spec, desc in body:
                r.append(".TP")
                r.append(line_out("\\fB" + esc(spec) + "\\fR"))
                r.append(line_out(esc(desc)) if desc else "\\&")
    return r


def read_in(path):
    """doc/man/*.in -> [(SECTION, [lines])]"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sections(f.read())


def sections(text):
    secs = []
    for l in text.split("\n"):
        if l.startswith("== "):
            secs.append((l[3:].strip().upper(), []))
        elif secs:
            secs[-1][1].append(l)
    return secs


def render_prose(lines):
    r, para, verb = [], [], []

    def flush():
        if para:
            r.append(".PP")
            r.extend(line_out(esc(l)) for l in para)
            para.clear()
        if verb:
            r.append(".PP")
            r.append(".nf")
            r.extend(line_out(esc(l)) for l in verb)
            r.append(".fi")
            verb.clear()

    for l in lines:
        if not l.strip():
            flush()
        elif l.startswith("  "):
            if para:
                flush()
            verb.append(l[2:])
        else:
            if verb:
                flush()
            para.append(l.strip())
    flush()
    return r


def page(name, title, synopsis, blocks, extra, see_also):
    r = ['.\\" made by scripts/mkman.py from `%s --help`: run `make man` after changing it' %
         name.replace("-", " "),
         ".TH %s 1 \"%s\" \"fntrace\" \"User Commands\"" % (name.upper().replace("-", "\\-"), DATE),
         ".SH NAME", "%s \\- %s" % (esc(name), esc(title)),
         ".SH SYNOPSIS", ".nf", line_out(esc(synopsis)), ".fi",
         ".SH DESCRIPTION"]
    # the help's prose before its first option block is the description
    desc_end = next((i for i, b in enumerate(blocks) if b[0] == "options"), len(blocks))
    r += render_blocks(blocks[:desc_end])
    for sec, lines in extra:
        if sec == "DESCRIPTION":
            r += render_prose(lines)
    r += render_blocks(blocks[desc_end:])
    for sec, lines in extra:
        if sec != "DESCRIPTION":
            r.append(".SH " + sec)
            r += render_prose(lines)
    r.append(".SH SEE ALSO")
    r.append(", ".join("\\fB%s\\fR(1)" % esc(s) for s in see_also))
    return "\n".join(r) + "\n"


def commands(main_help):
    """the command table from `fntrace --help`: [(name, one-line help)]"""
    out, on = [], False
    for l in main_help.split("\n"):
        if l.startswith("commands:"):
            on = True
            continue
        if on:
            m = re.match(r"^  ([\w-]+)\s+(.*)$", l)
            if not m:
                break
            out.append((m.group(1), m.group(2)))
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    fntrace, outdir = args
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "doc", "man")
    main_help = help_of(fntrace, None)
    cmds = commands(main_help)
    pages = {}
    names = ["fntrace-" + c for c, _ in cmds]
    synopsis, blocks = parse_help(main_help)
    # the command list becomes a COMMANDS section that names each page
    overview, skip = [], False
    for b in blocks:
        if b == ("para", ["commands:"]):
            skip = True
            continue
        if not skip or b[0] != "verbatim":
            overview.append(b)
        skip = False
    cmd_list = ["== COMMANDS"]
    for c, h in cmds:
        cmd_list += ["`fntrace %s`: %s; see fntrace-%s(1)." % (c, h, c), ""]
    pages["fntrace.1"] = page("fntrace", "record and show every function call of a C or C++ program",
                              synopsis, overview,
                              sections("\n".join(cmd_list)) + read_in(os.path.join(src, "fntrace.in")), names)
    for c, h in cmds:
        synopsis, blocks = parse_help(help_of(fntrace, c))
        extra = read_in(os.path.join(src, "fntrace-%s.in" % c))
        pages["fntrace-%s.1" % c] = page("fntrace-" + c, h, synopsis, blocks, extra,
                                         ["fntrace"] + [n for n in names if n != "fntrace-" + c])
    stale = []
    for name, text in sorted(pages.items()):
        path = os.path.join(outdir, name)
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        stale.append(path)
        if not check:
            os.makedirs(outdir, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if check and stale:
        print("mkman: out of date with --help: %s (run 'make man')" % ", ".join(stale))
        return 1
    return 0



if __name__ == "__main__":
    sys.exit(main())
