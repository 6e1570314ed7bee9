"""report --diff and graph --diff match the two traces' programs whatever
their file names (prog against prog-renamed: a build of each -O level
under its own name), the program's library calls too (puts); shared
libraries still match by file name (step() in libstep.so is not step() in
libstep2.so)."""
import csv
import io
import os
import re


def graph_rows(text):
    """(function with its tree prefix, new/gone/both) of each graph --diff line"""
    lines = text.splitlines()
    at = [m.start() for m in re.finditer(r"=+", lines[2])][-1]
    return [(l[at:], "new" if " new " in l else "gone" if " gone " in l else "both") for l in lines[3:]]


def check(ctx):
    base, _ = ctx.record_build("prog-renamed", args=["a", "b", "c", "d", "e"],
                               env=dict(os.environ, FNTRACE_LIBCALL="1"))

    p = ctx.run("report", "-d", ctx.data, "--diff", base, "-f", "csv", check=True)
    rows = {(r["function"], r["module"]): (int(r["calls"]), int(r["base_calls"]))
            for r in csv.DictReader(io.StringIO(p.stdout))}
    # the program's rows under this trace's name for it
    assert rows.get(("main", "prog")) == (1, 1), (rows, p.stdout)
    assert rows.get(("work", "prog")) == (1, 1), (rows, p.stdout)
    assert rows.get(("puts", "prog")) == (2, 5), (rows, p.stdout)
    assert rows.get(("step", "libstep.so")) == (2, 0), (rows, p.stdout)
    assert rows.get(("step", "libstep2.so")) == (0, 5), (rows, p.stdout)
    assert not any(m.startswith("prog-renamed") for f, m in rows), (rows, p.stdout)

    # text: only the libraries' step() rows are new and gone
    p = ctx.run("report", "-d", ctx.data, "--diff", base, check=True)
    lines = p.stdout.splitlines()[3:]
    status = {}
    for l in lines:
        f = l.split()[-1]
        status.setdefault(f, []).append("new" if " new " in l else "gone" if " gone " in l else "both")
    assert sorted(status["step"]) == ["gone", "new"], p.stdout
    for f in ("main", "work", "puts"):
        assert status[f] == ["both"], (f, p.stdout)

    # graph: the paths through the program match, step's do not
    p = ctx.run("graph", "-d", ctx.data, "--diff", base, check=True)
    assert graph_rows(p.stdout) == [("main", "both"), ("+-work", "both"), ("   +-step", "new"),
                                    ("   +-puts", "both"), ("   +-step", "gone")], p.stdout
