"""dlopen("./libplugin.so"): the module map holds the absolute path, so a
replay from another directory names the plugin's functions (issue 12; they
were raw addresses before, the relative path resolving against the
reader's directory)."""
import os


def check(ctx):
    info = ctx.run("info", check=True).stdout
    lib = os.path.join(ctx.builddir, "libplugin.so")
    assert lib in info and "./libplugin.so" not in info, info
    elsewhere = ctx.run("report", "--format", "csv", "-d", ctx.data, cwd="/", check=True).stdout
    calls = {l.split(",")[0]: l.split(",")[1] for l in elsewhere.splitlines()[1:]}
    assert calls.get("plugin_entry") == "2" and calls.get("plugin_leaf") == "4", elsewhere
