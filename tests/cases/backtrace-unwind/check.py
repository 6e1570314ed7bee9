"""backtrace() in destructors run by an exception's unwind sees its callers
up to main, as untraced (it saw too few frames before), under
-finstrument-functions with library calls traced and under -pg."""
import os
import subprocess


def check(ctx):
    for prog in ("prog", "prog-fentry"):
        plain = subprocess.run([os.path.join(ctx.work, prog)], capture_output=True, text=True, check=True).stdout
        # the two destructors the unwind runs
        assert plain.startswith("thrower: main seen\nmid: main seen\ncaught\n"), (prog, plain)
        if prog == "prog":
            assert ctx.record.stdout == plain, ctx.record.stdout
            continue
        for args in ((), ("--no-libcall",)):
            ctx.record_build(prog, stdout=plain, record_args=args)
