"""One man page per command, in step with its --help: every option that
--help lists is in the page (checked here on the rendered page, apart from
how scripts/mkman.py makes it), the pages in doc/man are what `make man`
makes now, and man renders them without warnings.  The bash completion
offers the commands, each command's options, the --format values and the
function names of a trace."""
import os
import re
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MAN = os.path.join(ROOT, "doc", "man")


def commands(ctx):
    out = ctx.run("--help", data=False, check=True).stdout
    cmds = re.findall(r"^  ([a-z-]+)  +\S", out.split("commands:")[1].split("\n\n")[0], re.M)
    assert len(cmds) >= 8, out
    return cmds


def help_options(text):
    opts = set()
    for line in text.splitlines():
        if re.match(r"^ {1,8}-", line):
            spec = re.split(r"  +", line.strip())[0]
            opts.update(re.findall(r"(?<![\w-])--?[A-Za-z][A-Za-z-]*", spec))
    return opts


def rendered(page):
    env = dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="0")
    p = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert not p.stderr.strip(), "%s: man warns: %s" % (page, p.stderr)
    return re.sub(r".\x08", "", p.stdout).replace("\u2010", "-").replace("\u2011", "-")


def check(ctx):
    problems = []
    p = subprocess.run(["python3", os.path.join(ROOT, "scripts", "mkman.py"), ctx.fntrace, MAN, "--check"],
                       capture_output=True, text=True)
    if p.returncode:
        problems.append(p.stdout + p.stderr)
    have_man = shutil.which("man") is not None
    cmds = commands(ctx)
    for c in cmds:
        page = os.path.join(MAN, "fntrace-%s.1" % c)
        if not os.path.exists(page):
            problems.append("no man page for '%s'" % c)
            continue
        text = rendered(page) if have_man else open(page).read().replace("\\-", "-")
        help_text = ctx.run(c, "--help", data=False, check=True).stdout
        opts = help_options(help_text)
        assert "--help" in opts and len(opts) > 3, (c, opts)
        missing = sorted(o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text))
        if missing:
            problems.append("fntrace-%s.1 lacks %s" % (c, ", ".join(missing)))
    main = rendered(os.path.join(MAN, "fntrace.1")) if have_man else open(os.path.join(MAN, "fntrace.1")).read()
    for c in cmds:
        if "fntrace-%s(1)" % c not in main:
            problems.append("fntrace.1 does not name fntrace-%s(1)" % c)
    # bare `fntrace` shows the command list, as git and perf do
    p = ctx.run(data=False)
    if p.returncode != 1 or "commands:" not in p.stdout or "record" not in p.stdout:
        problems.append("bare fntrace: exit %d, stdout %r" % (p.returncode, p.stdout[:200]))

    # bash completion, driven as bash drives it
    comp = os.path.join(ROOT, "scripts", "fntrace-completion.bash")
    trace_src = os.path.join(ctx.work, "t.c")
    with open(trace_src, "w") as f:
        f.write("__attribute__((noinline)) int parse_expr(int x) { return x + 1; }\n"
                "int main(void) { return parse_expr(-1); }\n")
    subprocess.run(["gcc", "-finstrument-functions", "-o", os.path.join(ctx.work, "t"), trace_src], check=True)
    ctx.run("record", "-d", os.path.join(ctx.work, "fntrace.data"), "--", os.path.join(ctx.work, "t"),
            data=False, check=True)
    script = """
source '%s'
comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _fntrace
         printf '%%s\\n' "${COMPREPLY[@]}" | sort | tr '\\n' ' '; echo; }
comp '%s' ''
comp '%s' rep
comp '%s' export --format ''
comp '%s' report --format ''
comp '%s' replay --ti
comp '%s' replay -F pa
comp '%s' graph ''
comp '%s' tui -C pa
comp '%s' tui --ca
""" % ((comp,) + (ctx.fntrace,) * 9)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=ctx.work).stdout.splitlines()
    want = [set(cmds) | {"--help", "--version"}, {"replay", "report"},
            {"perfetto", "chrome", "folded", "svg", "html"}, {"text", "csv", "json"},
            {"--tid", "--time", "--time-filter"}, {"parse_expr"}, {"main", "parse_expr"}, {"parse_expr"},
            {"--caller-filter"}]
    for i, w in enumerate(want):
        got = set(out[i].split()) if i < len(out) else set()
        if not w <= got or (i in (1, 5, 7, 8) and got != w):
            problems.append("completion %d: got %s, want %s" % (i, sorted(got), sorted(w)))
    assert not problems, "\n".join(problems)
