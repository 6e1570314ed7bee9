"""Record-time filters keep what the same filters keep at read time when an
exception is thrown by a frame that, a moment before, recursed 602 depths
down and back: the notes the runtime keeps for 512 depths (a function and a
written depth) were the recursion's where the exception left frames, and
it closed nothing at the landing pad (with clang the frames the exception
left stayed open, the catch's calls inside them; both clang builds failed
before).  `-D` and `-N` leave every call of this program written; `-F f`
writes from main's first call down."""
import os


def calls(text):
    return [l.split("| ", 1)[1] for l in text.splitlines()[1:]]


def check(ctx):
    full = ctx.data
    for opts in (["-D", "10000"], ["-N", "no_such_function"], ["-F", "f"]):
        d = os.path.join(ctx.work, "rec.data")
        ctx.run("record", "-q", "-d", d, *opts, "--", os.path.join(ctx.work, "prog"), data=False, check=True)
        rec = calls(ctx.run("replay", "-d", d, check=True).stdout)
        read = calls(ctx.run("replay", "-d", full, *opts, check=True).stdout)
        assert rec == read, (opts, [l for l in rec if "leaf" in l or "thrower" in l or "unwound" in l][:20],
                             [l for l in read if "leaf" in l or "thrower" in l or "unwound" in l][:20])
        # the catch's calls at the catching frame's depth, not inside the
        # frames the exception left
        # (gcc's cleanups call h's exit hook: "} /* h */"; clang's do not)
        want = ["leaf();", "leaf();", "} /* f */"] + ([] if opts[0] == "-F" else ["leaf();", "} /* main */"])
        got = rec[-len(want) - 1:]
        assert got[0].strip() in ("} /* h */", "} /* h (no return: unwound) */"), (opts, rec[-8:])
        assert [l.strip() for l in got[1:]] == want, (opts, rec[-8:])
        indent = [len(l) - len(l.lstrip()) for l in got]
        assert indent[1] == indent[2] == indent[0] and indent[3] == indent[0] - 2, (opts, rec[-8:])
    # cycle: the landing frame looked for among the notes that are still
    # their depth's own (before, -F main lost handled, the leaf after it
    # and main's return: "trace ended")
    d = os.path.join(ctx.work, "cycle.data")
    full = os.path.join(ctx.work, "cycle-full.data")
    ctx.run("record", "-q", "-d", full, "--", os.path.join(ctx.work, "prog"), "cycle", data=False, check=True)
    for opts in (["-F", "main"], ["-D", "1000"]):
        ctx.run("record", "-q", "-d", d, *opts, "--", os.path.join(ctx.work, "prog"), "cycle", data=False, check=True)
        rec = calls(ctx.run("replay", "-d", d, "--fields", "none", check=True).stdout)
        read = calls(ctx.run("replay", "-d", full, "--fields", "none", *opts, check=True).stdout)
        assert rec == read, (opts, rec[-6:], read[-6:])
        assert [l.strip() for l in rec[-4:]] == ["handled();", "} /* catcher */", "leaf();", "} /* main */"], \
            (opts, rec[-6:])
