"""--auto-args reads the parameters of a function parameter pack, and the
ones after it, from their registers (gcc nests the pack's parameters in
DW_TAG_GNU_formal_parameter_pack, without names; clang names them)."""
import json
import re


def check(ctx):
    calls = {}
    for l in ctx.run("replay", "--format", "json", check=True).stdout.splitlines():
        c = json.loads(l)
        calls.setdefault(c["name"], []).append(c)

    def plain(args):
        return re.sub(r"\b(rest|a)=", "", args)      # clang's names of the pack's parameters

    got = sorted((n, plain(c.get("args", "")), c.get("retval")) for n, cs in calls.items()
                 for c in cs if n.startswith(("sum", "before")))
    assert got == [("before<>", "last=7", "0"), ("before<int, long>", "4, 5, last=6", "54"),
                   ("sum<>", "first=8", "8"), ("sum<long, int>", "first=1, 2, 3", "6")], got
