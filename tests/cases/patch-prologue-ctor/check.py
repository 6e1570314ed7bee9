"""-P on a dlopen'ed plugin whose constructor calls selected functions:
patched while dlopen loads it (the dynamic linker's _dl_debug_state, before
the constructors), so plug_init's calls are in the trace, inside the dlopen."""
import re


def check(ctx):
    # plug_init: plug_run(3) = 1+3+5 = 9, plus its 4 increments; main's
    # plug_run(4) = 16 with 5 more
    assert ctx.record.stdout == "16 18\n", ctx.record.stdout
    got = ctx.counts()
    assert got == {"plug_init": 1, "plug_run": 2, "plug_step": 7}, got
    info = ctx.run("info", check=True).stdout
    assert re.search(r"-P: 3 functions patched in '.*/plugin.so'", info), info
    # once: not again after the dlopen
    assert len(re.findall(r"functions patched in '.*/plugin.so'", info)) == 1, info
    # The body scan was Zydis's (patch-prologue checks that it reaches
    # capstone's verdicts): the runtime loaded it, and the scan after the
    # dlopen recorded it among the modules; FNTRACE_PATCH_SCAN=capstone
    # leaves it unloaded, with the same counts.
    import os
    zydis = re.compile(r"/libZydis\.so\.4\.0 ")
    if os.path.exists("/usr/lib/x86_64-linux-gnu/libZydis.so.4.0"):
        assert zydis.search(info), info
    d = os.path.join(ctx.work, "capstone.data")
    p = ctx.run("record", "-q", "-d", d, "-P", "plug_*", "--", os.path.join(ctx.work, "prog"), data=False,
                env=dict(os.environ, FNTRACE_PATCH_SCAN="capstone"))
    assert p.returncode == 0 and p.stdout == "16 18\n", (p.returncode, p.stdout, p.stderr)
    assert ctx.counts("-d", d) == got, (ctx.counts("-d", d), got)
    assert not zydis.search(ctx.run("info", "-d", d, check=True).stdout)
