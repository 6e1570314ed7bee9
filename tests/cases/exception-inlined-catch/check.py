import re


def tree(text):
    """replay lines, thrower's unwound opening and closing (clang, whose
    -finstrument-functions calls no exit hook for the frame an exception
    leaves) folded into one leaf line as gcc shows it"""
    out = [l.split("| ", 1)[1] for l in text.splitlines() if "| " in l and not l.startswith("#")]
    folded = []
    for l in out:
        if folded and l.strip() == "} /* thrower (no return: unwound) */" and folded[-1].strip() == "thrower() {":
            folded[-1] = folded[-1].replace("thrower() {", "thrower();")
            continue
        folded.append(l)
    return folded


def check(ctx):
    """each catch runs inside the inlined function that holds it, in every
    build, and that function returns; report's fast path agrees"""
    assert ctx.record.stdout == "453\n", ctx.record.stdout
    got = tree(ctx.run("replay", "--no-pager", "--fields", "none", check=True).stdout)
    want = ["main() {",
            "  catcher() {", "    thrower();", "    handled();", "  } /* catcher */",
            "  top() {", "    loud() {", "      thrower();", "      handled();", "    } /* loud */", "  } /* top */",
            "  nest() {", "    mid() {", "      inner() {", "        thrower();", "        handled();",
            "      } /* inner */", "    } /* mid */", "  } /* nest */",
            "  outer() {", "    passthru() {", "      thrower();"]
    if ctx.compiler == "gcc":       # gcc runs passthru's exit hook in its cleanup
        want += ["      Guard::~Guard();", "    } /* passthru */"]
    else:                           # clang: the cleanup's pad is outer's catch's too
        want += ["    } /* passthru (no return: unwound) */", "    Guard::~Guard();"]
    want += ["    handled();", "  } /* outer */", "  after();", "} /* main */"]
    assert got == want, "\n".join(got)
    # graph (the call layer) and report's fast path: catcher's time, to the ns
    g = ctx.run("graph", "--no-pager", check=True).stdout
    m = re.search(r"^ +(\d+)\.(\d{3}) (us|ms|s) +[\d.]+ [mu]?s +1  \+-catcher$", g, re.M)
    assert m and re.search(r"^ +[\d.]+ [mu]?s +[\d.]+ [mu]?s +1  \|  \+-handled$", g, re.M), g
    rows = {r["function"]: r for r in ctx.csv()}
    scale = {"us": 1, "ms": 1000, "s": 1000000}[m.group(3)]
    total = int(rows["catcher"]["total_ns"]) // scale
    assert total == int(m.group(1)) * 1000 + int(m.group(2)), (rows["catcher"], g)
    check_record_filters(ctx)



def check_record_filters(ctx):
    """record-time filters, which have no DWARF: a function inlined into
    the landing frame that holds the catch closes as unwound at the landing
    pad (its catch runs a level too high), and its return, when it comes,
    is skipped.  Before, that return ended its caller's frame: under both
    compilers the next calls nested inside the catching one, or the
    thread's frames never closed (`} /* top (no return: trace ended) */`)."""
    exe = ctx.work + "/prog"
    d = ctx.work + "/rec-filtered"

    def rec(*opts):
        ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", exe, data=False, check=True)
        return tree(ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout)

    got = rec("-F", "catcher", "-F", "top", "-F", "nest", "-F", "outer", "-F", "after")
    want = ["catcher() {", "  thrower();", "} /* catcher (no return: unwound) */",
            "top() {", "  loud() {", "    thrower();", "  } /* loud (no return: unwound) */", "  handled();",
            "} /* top */",
            "nest() {", "  mid() {", "    inner() {", "      thrower();", "    } /* inner (no return: unwound) */",
            "  } /* mid (no return: unwound) */", "  handled();", "} /* nest */",
            "outer() {", "  passthru() {", "    thrower();", "  } /* passthru (no return: unwound) */",
            "  Guard::~Guard();", "  handled();", "} /* outer */",
            "after();"]
    assert got == want, "\n".join(got)
    # deep: 1,000 returns of the inlined catcher, each skipped at once at
    # the bottom of a recursion 2,000 deep.  -D 2004 keeps main (1), rec
    # (2-2002), f and catcher, not thrower below catcher (before, each
    # return of catcher took one more level off the filters' depth, and
    # thrower was written 999 or 1,998 times; then, each one looked through
    # every call open, 2,000 of them)
    ctx.run("record", "-q", "--no-libcall", "-d", d, "-D", "2004", "--", exe, "deep", data=False, check=True)
    got = tree(ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout)
    assert sum(l.strip() == "} /* f */" for l in got) == 1000 and got[-1] == "} /* main */", got[-12:]
    assert sum(l.strip() == "handled();" for l in got) == 1000, got[-12:]
    assert not any("thrower" in l or "trace ended" in l for l in got), got[-12:]
    for opts in (["-N", "nest"], ["-D", "3"]):
        got = rec(*opts)
        assert got[-2:] == ["  after();", "} /* main */"] and sum(l.strip() == "handled();" for l in got) >= 3, (opts, "\n".join(got))
        assert not any("trace ended" in l for l in got), (opts, "\n".join(got))
