"""report --diff and graph --diff match each overload with itself (by
signature), and show them by their signatures as report and graph do."""
import csv
import io
import re


def check(ctx):
    now, _ = ctx.record_build("prog", args=["x"])
    p = ctx.run("report", "-d", now, "--diff", ctx.data, "-f", "csv", check=True)
    rows = {r["function"]: (int(r["calls"]), int(r["base_calls"])) for r in csv.DictReader(io.StringIO(p.stdout))}
    assert rows == {"main": (1, 1), "n::f(int)": (3, 3), "n::f(double)": (8, 7)}, (rows, p.stdout)
    text = ctx.run("report", "-d", now, "--diff", ctx.data, check=True).stdout
    calls = {l.split()[-1]: (l.split()[-3], l.split()[-2]) for l in text.splitlines()[3:] if l.strip()}
    assert calls["n::f(int)"] == ("3", "0") and calls["n::f(double)"] == ("8", "+1"), (calls, text)
    g = ctx.run("graph", "-d", now, "--diff", ctx.data, check=True).stdout
    lines = g.splitlines()
    at = [m.start() for m in re.finditer(r"=+", lines[2])][-1]
    got = sorted((l[at:], l.split()[-3], l.split()[-2]) for l in lines[3:])
    assert got == [("+-n::f(double)", "8", "+1"), ("+-n::f(int)", "3", "0"), ("main", "1", "0")], (got, g)
    assert " gone " not in g and " new " not in g, g
    # the program rebuilt at the other -O level matches too (the key's source
    # file, read from the line table, may differ between the builds: the
    # signature and module decide when they are one function's)
    import os
    import subprocess
    other = "O2" if ctx.opt == "O0" else "O0"
    exe = os.path.join(ctx.work, "rebuilt", "prog")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cc = "g++" if ctx.compiler == "gcc" else "clang++"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.cc")
    subprocess.run([cc, "-" + other, "-g", "-finstrument-functions", "-o", exe, src], check=True)
    d = os.path.join(ctx.work, "rebuilt.data")
    ctx.run("record", "-q", "-d", d, "--", exe, data=False, check=True)
    p = ctx.run("report", "-d", d, "--diff", ctx.data, "-f", "csv", check=True)
    rows = {r["function"]: (int(r["calls"]), int(r["base_calls"])) for r in csv.DictReader(io.StringIO(p.stdout))}
    assert rows == {"main": (1, 1), "n::f(int)": (3, 3), "n::f(double)": (7, 7)}, (rows, p.stdout)
