import re


def check(ctx):
    # the three loads are in the module list, each with its own unload time
    info = ctx.run("info", check=True).stdout
    mods = [l for l in info.splitlines() if re.search(r"/lib[ab]\.so\b", l)]
    assert len(mods) == 3, info
    assert [("liba" if "liba.so" in l else "libb") for l in mods] == ["liba", "libb", "liba"], mods
    assert all("unloaded at" in l for l in mods), mods
    # the program printed where plugin_entry was each time; when the loader
    # reused the address (it normally does) the names above prove that each
    # event was resolved against the module mapped at that moment
    addrs = [l.split()[1] for l in ctx.record.stdout.splitlines()]
    assert len(addrs) == 3, ctx.record.stdout
