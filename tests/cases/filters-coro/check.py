import os

OUT = "sink 84\n"
LIBC = ["-N", "swapcontext", "-N", "makecontext", "-N", "getcontext", "-N", "printf"]


def lines(out):
    return [l.split("| ", 1)[1].rstrip() for l in out.splitlines() if "| " in l and not l.startswith("#")]


def check(ctx):
    """each record-time filter keeps exactly what the same filter shows at
    read time on the whole trace, on both builds; and -F co_body's calls,
    spelled out"""
    assert ctx.record.stdout == OUT, ctx.record.stdout
    for prog in ("prog", "prog-fentry"):
        whole, _ = ctx.record_build(prog, stdout=OUT)
        for flt in (["-D", "4"], ["-D", "2"], ["-F", "co_body"], ["-F", "driver"], ["-F", "co_entry", "-D", "2"],
                    ["-N", "co_body"], ["-N", "resume"], ["-H", "co_body"], ["-H", "resume"]):
            d = os.path.join(ctx.work, "f.data")
            p = ctx.run("record", "-q", "-d", d, *LIBC, *flt, "--", os.path.join(ctx.work, prog))
            assert p.returncode == 0 and p.stdout == OUT, (prog, flt, p.returncode, p.stderr)
            rec = lines(ctx.run("replay", "-d", d, check=True).stdout)
            read = lines(ctx.run("replay", "-d", whole, *LIBC, *flt, check=True).stdout)
            assert rec == read, (prog, flt, "\n".join(rec), "\n".join(read))
            assert not any("unwound" in l or "entered" in l or "no return" in l for l in rec), (prog, flt, rec)
            if flt == ["-F", "co_body"]:
                names = [l.split("(")[0].strip("} /*") for l in rec]
                assert names == ["co_body", "mid", "leaf", "mid", "co_yield", "mid", "leaf", "mid", "co_yield",
                                 "mid", "leaf", "mid", "co_yield", "co_body"], (prog, rec)
