"""-T and -H at record time on the functions of a library loaded with
dlopen (twice, unloaded between): the triggers are resolved at each dlopen
(issue 14); a backtrace trigger on a library call.  The program is the
dlopen case's."""
import os


def lines(text):
    return [l[2:] for l in text.splitlines() if not l.startswith("#")]


def check(ctx):
    prog = os.path.join(ctx.builddir, "prog")

    def replay(*opts, env=None):
        d = os.path.join(ctx.work, "t.data")
        ctx.run("record", "-q", "-d", d, *opts, "--", prog, data=False, check=True, env=env)
        return lines(ctx.run("replay", "--no-pager", "--fields", "none", "-d", d, check=True).stdout)

    def call(body):
        return ["  call_plugin() {"] + ["    " + l for l in body] + ["  } /* call_plugin */"]

    got = replay("-T", "plugin_entry@backtrace,depth=1")
    want = ["main() {"]
    for line in (18, 20):
        want += call(["plugin_entry() {", "  /* stack #0  plugin.so!plugin_entry (plugin.c:2) */",
                      "  /* stack #1  prog!call_plugin (prog.c:8) */",
                      "  /* stack #2  prog!main (prog.c:%d) */" % line, "} /* plugin_entry */"])
    assert got == want + ["} /* main */"], got
    assert replay("-H", "plugin_entry") == ["main() {"] + call(["plugin_helper();"]) * 2 + ["} /* main */"]
    assert replay("-T", "plugin_helper@time=1s") == ["main() {"] + call(["plugin_entry();"]) * 2 + ["} /* main */"]

    # a library call (traced before the library function runs): the stack
    # starts at its caller, without the runtime's frames
    got = replay("-T", "dlsym@backtrace", env=dict(os.environ, FNTRACE_LIBCALL="1"))
    bt = [l.strip() for l in got if "/* stack" in l]
    assert bt == ["/* stack #0  prog!call_plugin (prog.c:7) */", "/* stack #1  prog!main (prog.c:18) */",
                  "/* stack #0  prog!call_plugin (prog.c:7) */", "/* stack #1  prog!main (prog.c:20) */"], got
