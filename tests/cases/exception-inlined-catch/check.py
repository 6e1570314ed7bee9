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


def calls(text):
    return [l.split("| ", 1)[1] for l in text.splitlines() if "| " in l and not l.startswith("#")]


def check_record_filters(ctx):
    """record-time filters keep what the same filters keep at read time.
    The runtime has no DWARF: a frame whose entry hook was called from the
    landing frame's own stack frame (%rsp) is inlined into it and stays open
    at the landing pad, and an exit of a call that is not the innermost
    open one closes the calls inside it.  Before, the runtime closed the
    inlined catching function at the landing (both compilers), and its exit
    later ended its caller's frame: the next calls nested inside it, or the
    thread's frames never closed.  clang's passthru, whose cleanup's pad is
    outer's catch's too, stays open until outer returns: its cleanup and
    outer's catch run inside it, where the reader (with DWARF) closes it at
    the pad."""
    exe = ctx.work + "/prog"
    for opts in (["-F", "catcher", "-F", "top", "-F", "nest", "-F", "outer", "-F", "after"],
                 ["-N", "nest"], ["-D", "3"]):
        d = ctx.work + "/rec-filtered"
        ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", exe, data=False, check=True)
        rec = calls(ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout)
        read = calls(ctx.run("replay", "--no-pager", "--fields", "none", *opts, check=True).stdout)
        if ctx.compiler == "clang" and opts[1] != "3":
            i = read.index(next(l for l in read if l.strip() == "} /* passthru (no return: unwound) */"))
            ind = read[i][:len(read[i]) - len(read[i].lstrip())]
            assert [l.strip() for l in read[i + 1:i + 3]] == ["Guard::~Guard();", "handled();"], (opts, read)
            read = read[:i] + [ind + "  Guard::~Guard();", ind + "  handled();", read[i]] + read[i + 3:]
        elif ctx.compiler == "clang":   # -D 3: outer's catch is at depth 3
            i = read.index(next(l for l in read if l.strip() == "} /* passthru (no return: unwound) */"))
            assert [l.strip() for l in read[i + 1:i + 3]] == ["Guard::~Guard();", "handled();"], (opts, read)
            read = read[:i + 1] + read[i + 3:]
        assert rec == read, (opts, "\n".join(rec), "\n".join(read))
        assert rec[-1].strip() == ("} /* main */" if opts[0] != "-F" else "after();"), (opts, rec)
