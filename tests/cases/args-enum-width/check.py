"""--auto-args: enumerators of 1-, 2- and 8-byte enums, signed and unsigned,
print by name (a 2-byte 0xffff printed as 65535 before: its constant was
sign-extended in the spec, its value was not)."""
import json


def check(ctx):
    calls = [json.loads(l) for l in ctx.run("replay", "--format", "json", check=True).stdout.splitlines()]
    got = [(c["name"], c["args"]) for c in calls if c["name"].startswith("take_")]
    assert got == [("take_mo", "m=mask"), ("take_mo", "m=acquire"), ("take_s8", "v=neg"), ("take_s8", "v=big"),
                   ("take_u8", "v=high"), ("take_u64", "v=top")], got
