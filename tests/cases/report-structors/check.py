import re


def check(ctx):
    """one row per destructor, each named with its kind"""
    out = ctx.run("report", check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*\S+ \S+\s+\S+ \S+\s+(\d+)\s+.*\s{2}(B::~B.*)$", line)
        if m:
            rows[m.group(2)] = int(m.group(1))
    # the deleting one runs once (delete b); the other, complete (gcc) or
    # base (clang, whose complete destructor is an alias of it), for both
    assert rows.get("B::~B [deleting, prog.cc]") == 1, (rows, out)
    others = [k for k in rows if k != "B::~B [deleting, prog.cc]"]
    assert len(others) == 1 and others[0] in ("B::~B [complete, prog.cc]", "B::~B [base, prog.cc]"), (rows, out)
    assert all("[prog.cc]" not in k for k in rows), (rows, out)
