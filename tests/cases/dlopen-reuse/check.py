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

    # --srcline inside the libraries, with call sites, recorded again with
    # --callsite: each library's own file:line even at the same address
    cs = ctx.work + "/callsite.data"
    p = ctx.run("record", "-d", cs, "--callsite", "--", ctx.work + "/prog", data=False)
    assert p.returncode == 0, p
    out = ctx.run("replay", "-d", cs, "--srcline", "-F", "use", check=True).stdout
    got = [l.split("| ", 1)[1].strip() for l in out.splitlines()[1:]]
    got = [l for l in got if not l.startswith("}")]
    want = []
    for site, lib, helper in ((23, "liba", "alpha_helper"), (24, "libb", "bravo_helper"), (25, "liba", "alpha_helper")):
        want += ["use() { [prog.c:8] [from prog.c:%d]" % site,
                 "plugin_entry() { [%s.c:3] [from prog.c:14]" % lib,
                 "%s(); [%s.c:2] [from %s.c:3]" % (helper, lib, lib)]
    assert got == want, "\n".join(got)
