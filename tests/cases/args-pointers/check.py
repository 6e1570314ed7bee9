"""Pointer values (/p, and --auto-args' pointer types) name what they point
to when a symbol of a module covers it, read from the trace's module map
and the symbol tables (issue 12): &twice (a function), &table+0x8 (inside
an array), &lib_data+0xc (a library's data); heap, stack and string
literals (no symbol covers them) stay in hex."""
import json, re


def check(ctx):
    calls = [json.loads(l) for l in ctx.run("replay", "--format", "json", check=True).stdout.splitlines()]
    keep = [(c["args"], c["retval"]) for c in calls if c["name"] == "keep"]
    assert len(keep) == 3, keep
    for a, r in keep:
        assert re.fullmatch(r"p=0x[0-9a-f]+", a) and r == a[2:], (a, r)
    # the same text in the exports
    out = ctx.run("export", "-f", "chrome", "-o", "-", check=True).stdout
    assert '"args":"fn=&twice, x=4"' in out and '"retval":"&table+0x8"' in out, out[:3000]
