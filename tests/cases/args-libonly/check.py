"""-A/-R and --auto-args on a program whose executable is built with
-finstrument-functions and whose library (linked with -llib) is built with
-pg -mfentry (issue 12: record checked the executable only and refused)."""
import json
import os


def calls(ctx, d):
    return {c["name"]: c for c in (json.loads(l) for l in
                                   ctx.run("replay", "-d", d, "--format", "json", check=True).stdout.splitlines())}


def check(ctx):
    c = calls(ctx, ctx.data)
    assert c["lib_add"]["args"] == "5, 10" and c["lib_add"]["retval"] == "15", c["lib_add"]
    d = os.path.join(ctx.work, "auto.data")
    ctx.run("record", "-q", "--auto-args", "-d", d, "--", os.path.join(ctx.builddir, "prog"), data=False, check=True)
    c = calls(ctx, d)
    assert c["lib_add"]["args"] == "a=5, b=10" and c["lib_add"]["retval"] == "15", c["lib_add"]
    assert c["lib_name"]["args"] == 's="xyz"' and c["lib_name"]["retval"] == '"yz"', c["lib_name"]
