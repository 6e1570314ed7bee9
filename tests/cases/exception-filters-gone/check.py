"""Record-time filters keep what the same filters keep at read time, but
for what the README documents: the catch of a function inlined into its
caller runs a level too high under record-time filters, and that function
ends "(no return: unwound)".  So the two replays are compared without the
inlined catcher's closing lines and without indentation.  Before: in
"nested", the inlined catcher's return closed the real f around it as
unwound and every outer level moved by one (all builds); in "many", the
same once the landing frame's own catches had filled the runtime's list
(clang); in "coro", a landing on the coroutine's stack made the main stack
skip step()'s return (clang)."""
import os


def calls(text):
    out = []
    for l in text.splitlines():
        if "| " not in l or l.startswith("#"):
            continue
        l = l.split("| ", 1)[1].strip()
        if l in ("} /* catcher */", "} /* catcher (no return: unwound) */"):
            continue
        out.append(l)
    return out


def check(ctx):
    exe = os.path.join(ctx.work, "prog")
    for mode in ("nested", "many", "coro"):
        full = os.path.join(ctx.work, "full-" + mode)
        ctx.run("record", "-q", "--no-libcall", "-d", full, "--", exe, mode, data=False, check=True)
        for opts in (["-D", "20"], ["-N", "thrower2"], ["-F", "main"]):
            d = os.path.join(ctx.work, "rec-" + mode)
            ctx.run("record", "-q", "--no-libcall", "-d", d, *opts, "--", exe, mode, data=False, check=True)
            rec = calls(ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout)
            read = calls(ctx.run("replay", "--no-pager", "--fields", "none", "-d", full, *opts, check=True).stdout)
            assert rec == read, (mode, opts, "\n".join(rec), "\n".join(read))
            assert "} /* main */" in rec and not any(l.startswith("} /* f (no return") for l in rec), (mode, opts, rec)
