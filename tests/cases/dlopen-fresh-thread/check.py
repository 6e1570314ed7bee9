"""The plugin's functions have their names (the module map has the plugin,
recorded by the dlopen wrapper on a thread that had run no traced code),
and info lists the plugin among the modules."""


def check(ctx):
    out = ctx.run("replay", check=True).stdout
    assert "0x" not in out, out
    info = ctx.run("info", check=True).stdout
    assert "/plugin.so" in info, info
