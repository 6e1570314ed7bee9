"""--auto-args passes a class that is non-trivial for calls (a copy
constructor of its own, a virtual function, a std::string member,
std::function, std::shared_ptr) by hidden reference, as gcc and clang do,
though gcc writes no DW_AT_calling_convention: the argument after it is
read from the right register, the class shows as its address, and one
returned comes back in memory (the arguments move by one)."""
import json
import re


def check(ctx):
    calls = {c["name"]: c for c in (json.loads(l) for l in
                                     ctx.run("replay", "--format", "json", check=True).stdout.splitlines())}
    addr = r"0x[0-9a-f]+"
    for name, p, x, ret in (("person", "p", 1, 41), ("copy", "c", 2, 7), ("virt", "v", 3, 10),
                            ("func", "f", 4, 4), ("shared", "p", 5, 14)):
        c = calls[name]
        assert re.fullmatch("%s=%s, x=%d" % (p, addr, x), c.get("args", "")), (name, c)
        assert c.get("retval") == str(ret), (name, c)
    assert calls["plain"]["args"] == "p={...}, x=6", calls["plain"]
    m = calls["mkcopy"]
    assert m["args"] == "x=3, y=4" and re.fullmatch(addr, m.get("retval", "")), m
