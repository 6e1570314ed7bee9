"""--auto-args: typedefs of byte types print as numbers, char types as
characters (issue 12)."""
import json


def check(ctx):
    calls = {c["name"]: c for c in (json.loads(l) for l in
                                     ctx.run("replay", "--format", "json", check=True).stdout.splitlines())}
    assert calls["settt"]["args"] == "tt=5, u=200, s=-3, c='x', uc='y', sc='z'", calls["settt"]
    assert calls["ret_byte"]["args"] == "x=4" and calls["ret_byte"]["retval"] == "5", calls["ret_byte"]
