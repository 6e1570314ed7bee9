"""replay --fields (issue 14): the columns before each call, in the order
given.  duration,tid is the default, byte for byte; the other columns are
checked against each other and against the program: self is the duration
for a leaf and at most it for a caller, module is the program, addr the
function's address (the same offsets as nm's), srcline the line of the
function's definition, elapsed/delta/time consistent with each other."""
import os
import re
import subprocess

DUR = r"(\s*\d+\.\d{3} (?:us|ms| s)| {11})"


def ns(text):
    text = text.strip()
    if not text:
        return None
    v, u = text.split()
    ip, fr = v.split(".")
    sc = {"us": 1000, "ms": 1000000, "s": 1000000000}[u]
    return int(ip) * sc + int(fr) * sc // 1000


def check(ctx):
    default = ctx.run("replay", check=True).stdout
    assert ctx.run("replay", "--fields", "duration,tid", check=True).stdout == default

    p = ctx.run("replay", "--fields", "none", check=True)
    lines = p.stdout.splitlines()
    assert lines[0] == "#| FUNCTION" and all(l.startswith("| ") for l in lines[1:]), lines
    assert [l[2:].strip() for l in lines[1:]] == [re.sub(r"^.*?\| ", "", l).strip() for l in default.splitlines()[1:]]

    out = ctx.run("replay", "--fields", "tid,elapsed,delta,self,duration,module,addr,srcline", check=True).stdout
    rx = re.compile(r"^\[\s*(\d+)\] " + DUR + " " + DUR + " " + DUR + " " + DUR +
                    r" (\S+)\s+(0x[0-9a-f]{16}) (\S+)\s+\| ( *)(.*)$")
    rows = []
    for l in out.splitlines()[1:]:
        m = rx.match(l)
        assert m, l
        rows.append(m.groups())
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "prog.c")).read().splitlines()
    defline = {}
    for i, l in enumerate(src, 1):
        m = re.match(r"^(?:__attribute__\(\(noinline\)\) )?(?:int |void \*)(\w+)\(", l)
        if m:
            defline[m.group(1)] = i
    nm = {}
    for l in subprocess.run(["nm", os.path.join(ctx.builddir, "prog")], capture_output=True, text=True).stdout.splitlines():
        parts = l.split()
        if len(parts) == 3 and parts[1] in "Tt":
            nm[parts[2]] = int(parts[0], 16)
    addr = {}
    prev = None
    tids = [re.search(r"\[\s*(\d+)\]", l).group(1) for l in default.splitlines()[1:]]
    assert [r[0] for r in rows] == tids
    for tid, el, de, se, du, mod, a, sl, ind, text in rows:
        name = re.sub(r"^\} /\* |\(.*$| \*/$", "", text)
        assert mod == "prog", (mod, text)
        if not text.startswith("}"):
            assert sl == "prog.c:%d" % defline[name], (sl, name)
        addr.setdefault(name, set()).add(int(a, 16))
        e = ns(el)
        if prev is not None:
            # delta is the time since the line before; elapsed has ms precision at worst
            assert abs((e - prev) - ns(de)) <= 1000, (el, de, prev)
        prev = e
        if text.endswith(");"):                 # a leaf: its self time is its duration
            assert se == du and ns(du) is not None, (se, du, text)
        elif text.startswith("}"):              # a caller closing: self <= duration
            assert ns(se) <= ns(du), (se, du, text)
        else:                                   # an opening line: no duration yet
            assert ns(se) is None and ns(du) is None, (se, du, text)
    for name, a in addr.items():
        assert len(a) == 1, (name, a)
    base = next(iter(addr["main"])) - nm["main"]
    for name, a in addr.items():
        assert next(iter(a)) - base == nm[name], (name, a, nm[name])

    # time: wall clock, the same spacing as elapsed
    out = ctx.run("replay", "--fields", "time,elapsed", check=True).stdout.splitlines()[1:]
    pairs = []
    for l in out:
        m = re.match(r"^(\d\d):(\d\d):(\d\d)\.(\d{9}) " + DUR + r" \| ", l)
        assert m, l
        h, mi, sec, frac = (int(x) for x in m.groups()[:4])
        pairs.append((((h * 60 + mi) * 60 + sec) * 1000000000 + frac, ns(m.group(5))))
    for (t0, e0), (t1, e1) in zip(pairs, pairs[1:]):
        assert abs((t1 - t0) - (e1 - e0)) <= 1000, (t0, t1, e0, e1)

    p = ctx.run("replay", "--fields", "duration,colour")
    assert p.returncode == 2 and p.stderr.startswith("fntrace: option '--fields': unknown field 'colour'"), p
