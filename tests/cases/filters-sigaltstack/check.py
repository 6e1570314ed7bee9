"""Record-time filters and a handler on a sigaltstack that siglongjmps back
to the main stack, 12 rounds: each round's s3() opens and closes at the
first level, and the leaf() after it is main's, under -D 3, 4 and 8 and -N
hdeep (and under -F s3, 12 closed s3() trees), from the
-finstrument-functions build and from the -pg -mfentry one (prog-pg, where
the landing stack's shadow stack must drop the frames the jump left, or the
filters' depth is lowered a second time when s3 returns).  Before, the main stack's filter depth kept the frames each jump
left: under -D 8 the third round's calls were deeper than the limit, and
all but 2 of the 12 s3() were lost, the last "(no return: trace ended)".

Inside s3: the whole tree each filter writes at record time is the one
the same filter shows at read time on the whole trace, and without
filters each round's leaf(9) after the jump is s3's, after the frames the
jump left (s3mid, spin, the handler's) closed "unwound".  Before, the
jump closed the handler's frames and left the main stack's open until
s3 returned: leaf(9) showed inside the innermost spin(); and the
sigaltstack kept its filter depths from the round before, so that under
-D 8 and -D 4 the handler's calls of the second round on were written
past the limit.

"after": setjmp called right after a handler on the sigaltstack returned,
before any hook saw the thread back on the main stack, then a longjmp to
it: the whole tree, from the -finstrument-functions build and from the
-pg -mfentry one (prog-pg).  Before, the buffer took the signal stack's
depths: under -pg, outer and main ended "(no return: trace ended)"; and
while recording was off, outer's return was lost (recording-switch)."""
import os


def top_level(text):
    """the lines at the first level under main, and main's own"""
    out = []
    for l in text.splitlines():
        if "| " not in l or l.startswith("#"):
            continue
        l = l.split("| ", 1)[1]
        if not l.startswith("   "):
            out.append(l)
    return out


def lines(text):
    return [l.split("| ", 1)[1] for l in text.splitlines() if "| " in l and not l.startswith("#")]


ROUND = ["  s3() {", "    s3mid() {", "      spin() {", "        spin() {", "          spin() {", "            spin() {",
         "              on_usr1() {", "                hdeep() {", "                  hdeep() {",
         "                    hdeep() {", "                    } /* hdeep (no return: unwound) */",
         "                  } /* hdeep (no return: unwound) */", "                } /* hdeep (no return: unwound) */",
         "              } /* on_usr1 (no return: unwound) */", "            } /* spin (no return: unwound) */",
         "          } /* spin (no return: unwound) */", "        } /* spin (no return: unwound) */",
         "      } /* spin (no return: unwound) */", "    } /* s3mid (no return: unwound) */", "    leaf();",
         "  } /* s3 */", "  leaf();"]


def check(ctx):
    want = ["main() {"] + ["  s3() {", "  } /* s3 */", "  leaf();"] * 12 + ["} /* main */"]
    for name in ("prog", "prog-pg"):
        exe = os.path.join(ctx.work, name)
        whole = os.path.join(ctx.work, "whole-" + name)
        ctx.run("record", "-q", "--no-libcall", "-d", whole, "--", exe, data=False, check=True)
        text = ctx.run("replay", "--no-pager", "--fields", "none", "-d", whole, check=True).stdout
        assert lines(text) == ["main() {"] + ROUND * 12 + ["} /* main */"], (name, text[:3000])
        for opts in (["-D", "3"], ["-D", "4"], ["-D", "8"], ["-N", "hdeep"], ["-F", "s3"], ["-F", "on_usr1"],
                     ["-H", "spin"]):
            d = os.path.join(ctx.work, "rec")
            p = ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", exe, data=False, check=True)
            assert p.stdout == "12 rounds\n", p.stdout
            text = ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout
            read = ctx.run("replay", "--no-pager", "--fields", "none", "-d", whole, *opts, check=True).stdout
            assert lines(text) == lines(read), (name, opts, text[:3000], read[:3000])
            if opts == ["-F", "s3"]:
                got = lines(text)
                assert got.count("s3() {") == 12 and got.count("} /* s3 */") == 12, (name, opts, text)
            elif opts[0] in ("-D", "-N"):
                assert top_level(text) == want, (name, opts, text)
            assert "trace ended" not in text and "lost" not in text, (name, opts, text)

    want = ["main() {", "  outer() {", "    on_usr2() {", "      leaf();", "    } /* on_usr2 */", "    a() {",
            "      b() {", "      } /* b (no return: unwound) */", "    } /* a (no return: unwound) */", "    leaf();",
            "  } /* outer */", "  leaf();", "} /* main */"]
    for name in ("prog", "prog-pg"):
        d = os.path.join(ctx.work, "after-" + name)
        p = ctx.run("record", "-q", "--no-libcall", "-d", d, "--", os.path.join(ctx.work, name), "after",
                    data=False, check=True)
        assert p.stdout == "after\n", p.stdout
        text = ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout
        got = [l.split("| ", 1)[1] for l in text.splitlines() if "| " in l and not l.startswith("#")]
        assert got == want, (name, text)
