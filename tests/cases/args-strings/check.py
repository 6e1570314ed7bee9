"""std::string and std::string_view values print as strings (issue 12), with
-A '/t' '/v' and with --auto-args, for g++ and clang++ (libstdc++ both)."""
import json, os, subprocess

WANT = [
    ("by_value", 's="hello", n=1', "6"),
    ("by_value", 's="' + "a" * 64 + '"..., n=2', "102"),
    ("by_ref", 's="a\\"b\\n\\x00z"', "6"),
    ("by_ref", 's=""', "0"),
    ("by_ptr", 's="hello"', "1"),
    ("by_ptr", "s=NULL", "0"),
    ("by_ptr", "s=<bad 0x10>", "1"),
    ("view", 'v="world", n=3', "8"),
    ("view", 'v="", n=4', "4"),
    ("view", "v=<bad 0x8>, n=5", "10"),
    ("make", "n=3", '"xxx"'),
    ("make", "n=40", '"' + "x" * 40 + '"'),
    ("tail", 'v="abc"', '"bc"'),
]


def calls(ctx, d):
    out = ctx.run("replay", "-d", d, "--format", "json", check=True).stdout
    return [c for c in (json.loads(l) for l in out.splitlines())
            if c["name"].split("[")[0] in ("by_value", "by_ref", "by_ptr", "view", "make", "tail")]


def check(ctx):
    # --auto-args: names and formats from the DWARF types
    d = os.path.join(ctx.work, "auto.data")
    p = subprocess.run([ctx.fntrace, "record", "-q", "-d", d, "--auto-args", "--", os.path.join(ctx.work, "prog")],
                       capture_output=True, text=True, cwd=ctx.work, timeout=120)
    assert p.returncode == 0, p.stderr
    got = [(c["name"].split("[")[0], c.get("args", ""), c.get("retval")) for c in calls(ctx, d)]
    assert got == WANT, "\n".join(map(str, got))
