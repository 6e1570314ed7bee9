"""Library calls are on by default: `fntrace record -- prog` with
FNTRACE_LIBCALL unset (the harness sets it to 0 for every other case) traces
them; FNTRACE_LIBCALL=0 in the environment turns them off, --libcall back on,
--no-libcall off."""
import os
import re
import subprocess

LIBS = {"malloc": 1, "qsort": 1, "printf": 1, "free": 1}


def record(ctx, name, *opts, libcall_env=None):
    env = dict(os.environ)
    env.pop("FNTRACE_LIBCALL", None)
    env.pop("LD_BIND_NOW", None)
    if libcall_env is not None:
        env["FNTRACE_LIBCALL"] = libcall_env
    d = os.path.join(ctx.work, name + ".data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, *opts, "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, env=env, timeout=120)
    m = re.fullmatch(r"1 2 3 4 cmp=(\d+)\n", p.stdout)
    assert p.returncode == 0 and m, (name, p.returncode, p.stdout, p.stderr)
    c = ctx.counts("-d", d)
    assert c.pop("main") == 1 and c.pop("cmp") == int(m.group(1)), (name, c)
    return c


def check(ctx):
    # (the program's own calls, main and its count of cmp, are checked by record())
    assert record(ctx, "default") == LIBS
    assert record(ctx, "env-off", libcall_env="0") == {}
    assert record(ctx, "env-off-libcall", "--libcall", libcall_env="0") == LIBS
    assert record(ctx, "no-libcall", "--no-libcall") == {}
