"""--auto-args places every argument as the x86-64 SysV ABI does (issue 12):
the arguments after an empty class, a packed struct with unaligned fields
and a std::string by value print their real values (they printed garbage:
each took a register it does not take); the std::string prints as a string."""
import json


def check(ctx):
    calls = {c["name"]: c for c in (json.loads(l) for l in
                                     ctx.run("replay", "--format", "json", check=True).stdout.splitlines())}
    e = calls["with_empty"]["args"]
    assert e.endswith("x=FOO, i=4, s=\"debug info test\"") and e.startswith("e={...}"), e
    p = calls["with_packed"]["args"]
    assert p == 'p={...}, after=11, s="packed"', p
    # std::string by value is a hidden reference, read as a string (with
    # clang too, which describes it only by a declaration)
    s = calls["with_string"]["args"]
    assert s == 'str="' + "q" * 40 + '", after=12, s="string"', s
