"""Helpers for the end-to-end cases' check.py that record a program again
(another build, other options) and compare what replay shows."""
import os


def lines(ctx, d, *args):
    """replay's lines for trace d, without the header and the duration and
    tid columns: "main() {", "  qsort();"..."""
    out = ctx.run("replay", "-d", d, *args, check=True).stdout
    return [l.split("| ", 1)[1] for l in out.splitlines()[1:]]


def record(ctx, name, exe, stdout, *opts):
    """record exe (a path, or a name in the case's work directory) into
    <work>/<name>.data with opts; checks its status 0 and its stdout; returns
    the trace directory"""
    d = os.path.join(ctx.work, name + ".data")
    p = ctx.run("record", "-q", "-d", d, *opts, "--", os.path.join(ctx.work, exe), data=False)
    assert p.returncode == 0 and p.stdout == stdout, (name, p.returncode, p.stdout, p.stderr)
    return d


def golden(ctx, name):
    """the lines of the case's expected/<name>"""
    with open(os.path.join(os.path.dirname(__file__), "cases", ctx.case, "expected", name)) as f:
        return f.read().splitlines()
