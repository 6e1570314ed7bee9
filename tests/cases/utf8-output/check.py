"""Every JSON and CSV fntrace writes is valid UTF-8 and parses, whatever the
thread names and captured strings hold: bytes that are not UTF-8 become
U+FFFD, quotes and control characters are escaped, and the html export
never lets a name close its <script>.  One JSON string writer serves them
all (tool/outbuf.h)."""
import csv
import io
import json
import os

# string arguments print as C literals (tool/args.c), bytes past ASCII as \x
BAD_ARG = '"bad \\xff\\xfe \\"q\\" </script> \\x01 ok \\xe2\\x82\\xac"'


def check(ctx):
    def run(*args):
        p = ctx.run(*args, check=True)
        return p.stdout

    # replay --format json: one object per call, the string argument intact
    # but for the bad bytes
    raw = ctx.run("replay", "-d", ctx.data, "--format", "json", check=True)
    calls = [json.loads(l) for l in raw.stdout.splitlines()]
    shows = [c for c in calls if c["name"] == "show"]
    assert len(shows) == 2, calls
    args = sorted(str(c.get("args")) for c in shows)
    assert args == [BAD_ARG, '"plain"'], args

    # report json and csv, per thread: the thread's name with U+FFFD
    rep = json.loads(run("report", "-d", ctx.data, "--format", "json", "--threads"))
    names = {t.get("name") for t in rep.get("threads", [])}
    assert "w\ufffd<t>\ufffd\"&\x01z" in names, names
    rows = list(csv.DictReader(io.StringIO(run("report", "-d", ctx.data, "--format", "csv"))))
    assert {r["function"]: int(r["calls"]) for r in rows} == {"main": 1, "show": 2, "worker": 1}, rows

    # chrome: loads as strict JSON, the thread's name is there
    out = os.path.join(ctx.work, "t.json")
    ctx.run("export", "-d", ctx.data, "-f", "chrome", "-o", out, "-q", check=True)
    with open(out, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    tnames = [e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"]
    assert "w\ufffd<t>\ufffd\"&\x01z" in tnames, tnames

    # html: strict UTF-8, and the thread name's markup never appears raw
    out = os.path.join(ctx.work, "t.html")
    ctx.run("export", "-d", ctx.data, "-f", "html", "-o", out, "-q", check=True)
    with open(out, "rb") as f:
        html = f.read().decode("utf-8")
    assert "<t>" not in html and "\\u003ct\\u003e" in html, "thread name not escaped in html"
