import re


def check(ctx):
    """catcher's catch runs inside catcher in every build, and catcher
    returns; report's fast path agrees with the call tree"""
    assert ctx.record.stdout == "243\n", ctx.record.stdout
    out = [l.split("| ", 1)[1] for l in ctx.run("replay", "--no-pager", "--fields", "none", check=True)
           .stdout.splitlines() if "| " in l]
    i = out.index("  catcher() {")
    j = out.index("  } /* catcher */")      # returned: not "(no return: unwound)"
    inside = out[i + 1:j]
    assert inside[-1] == "    handled();", out
    assert inside[0] in ("    thrower();", "    thrower() {"), out
    assert all(l.startswith("    ") for l in inside), out
    # passthru only cleans up: it closes before outer's catch runs
    k = out.index("  outer() {")
    rest = out[k:]
    end = [n for n, l in enumerate(rest) if l.startswith("    } /* passthru")]
    assert len(end) == 1 and rest.index("    handled();") > end[0], out
    clang = ctx.compiler == "clang"
    assert rest[end[0]] == ("    } /* passthru (no return: unwound) */" if clang else "    } /* passthru */"), out
    # graph (the call layer) and report's fast path: catcher's time, to the ns
    g = ctx.run("graph", "--no-pager", check=True).stdout
    m = re.search(r"^ +(\d+)\.(\d{3}) (us|ms|s) +[\d.]+ [mu]?s +1  \+-catcher$", g, re.M)
    assert m and re.search(r"^ +[\d.]+ [mu]?s +[\d.]+ [mu]?s +1  \|  \+-handled$", g, re.M), g
    rows = {r["function"]: r for r in ctx.csv()}
    scale = {"us": 1, "ms": 1000, "s": 1000000}[m.group(3)]
    total = int(rows["catcher"]["total_ns"]) // scale
    assert total == int(m.group(1)) * 1000 + int(m.group(2)), (rows["catcher"], g)
