"""-P '*' on hand-written functions, one for each refusal patch-prologue does
not meet: each is refused with its reason in `info` (by the Zydis body scan
and by capstone's alike), never appears in the trace, and still runs as
written; the ordinary functions beside them are patched."""
import os
import re

MOVE = ("an instruction among its first bytes cannot move (loop, jrcxz, a call to the next instruction, "
        "a target out of reach)")
NOT_TEXT = "not in .text (.init, .plt, .fini, _start)"
NO_SIZE = "its symbol has no size"
REFUSED = {
    "call_next": MOVE,          # call 1f; 1: pop %rax
    "loop_first": MOVE,         # loop: no rel32 form
    "jrcxz_first": MOVE,        # jrcxz: no rel32 form
    "far_rip": MOVE,            # lea 0x7ffffff0(%rip): the trampoline lies below the module
    "undecodable": "the disassembler cannot decode it",
    "no_size": NO_SIZE,
    "in_plt": NOT_TEXT,
    "in_init": NOT_TEXT,
    "in_own": NOT_TEXT,
    # and the start-up code every executable links in (as in patch-prologue)
    "_init": NOT_TEXT, "_fini": NOT_TEXT, "_start": NOT_TEXT,
    "deregister_tm_clones": NO_SIZE, "register_tm_clones": NO_SIZE, "__do_global_dtors_aux": NO_SIZE,
    "frame_dummy": NO_SIZE,
}


def verdicts(ctx, d):
    info = ctx.run("info", "-d", d, check=True).stdout
    got = dict(re.findall(r"^  -P skipped (\S+) +0x[0-9a-f]+: (.*)$", info, re.M))
    assert "patched (-P): 2 functions, %d skipped (see below)\n" % len(REFUSED) in info, info
    assert re.search(r"^  -P: 2 functions patched in '.*/prog'$", info, re.M), info
    return got


def check(ctx):
    assert ctx.record.stdout == "1 1 2 3 5 9 11 27\n", ctx.record.stdout
    assert ctx.counts() == {"main": 1, "patched": 1, "printf": 1}, ctx.counts()
    assert "fntrace: -P patched 2 functions, skipped %d ('fntrace info' lists them and why)\n" % len(REFUSED) \
        in ctx.record.stderr, ctx.record.stderr
    got = verdicts(ctx, ctx.data)
    assert got == REFUSED, {k: (got.get(k), REFUSED.get(k)) for k in set(got) | set(REFUSED)
                            if got.get(k) != REFUSED.get(k)}
    d = os.path.join(ctx.work, "capstone.data")
    p = ctx.run("record", "-q", "-d", d, "-P", "*", "--", os.path.join(ctx.work, "prog"), data=False,
                env=dict(os.environ, FNTRACE_PATCH_SCAN="capstone"))
    assert p.returncode == 0 and p.stdout == ctx.record.stdout, (p.returncode, p.stdout, p.stderr)
    assert verdicts(ctx, d) == REFUSED

    # a glob that names nothing (a comma list is one glob): said, not a
    # trace silently without the functions; once one -P matches, nothing
    d = os.path.join(ctx.work, "nomatch.data")
    p = ctx.run("record", "-q", "-d", d, "-P", "patched,main", "--", os.path.join(ctx.work, "prog"), data=False)
    assert p.returncode == 0 and p.stdout == ctx.record.stdout, (p.returncode, p.stderr)
    assert p.stderr == ("fntrace: warning: -P: 'patched,main' matched no function of the program or of its own "
                        "libraries (one name or glob per -P; 'nm' lists the names; libraries under /lib and "
                        "/usr/lib are not patched)\n"), p.stderr
    p = ctx.run("record", "-q", "-d", d, "-P", "nosuch", "-P", "patched", "--", os.path.join(ctx.work, "prog"),
                data=False)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    assert ctx.counts("-d", d) == {"patched": 1, "printf": 1}, ctx.counts("-d", d)
