"""Constructors of dlopen'ed modules: an instrumented plugin's library calls
(getenv, strtol) and a patchable plugin's -P-selected functions, called from
constructors inside dlopen, are in the trace, nested under the constructor
and inside the dlopen."""


def check(ctx):
    assert ctx.record.stdout == "14 6\n", ctx.record.stdout
    got = ctx.counts()
    for fn, n in (("plugin_init", 2), ("getenv", 2), ("strtol", 2), ("plugin_get", 2),
                  ("pad_init", 1), ("pad_step", 3)):
        assert got.get(fn) == n, (fn, got.get(fn), n, got)
    # each is the constructor's: nested right under it, inside the dlopen
    import json
    calls = [json.loads(l) for l in ctx.run("replay", "-f", "json", check=True).stdout.splitlines()]

    def parent(c):
        up = [p for p in calls if p["tid"] == c["tid"] and p["depth"] == c["depth"] - 1 and
              p["start_ns"] <= c["start_ns"] and p["end_ns"] >= c["end_ns"]]
        return up[0]["name"] if len(up) == 1 else up

    parents = {}
    for c in calls:
        if c["name"] in ("getenv", "strtol", "pad_step", "plugin_init", "pad_init"):
            parents.setdefault(c["name"], set()).add(str(parent(c)))
    assert parents == {"getenv": {"plugin_init"}, "strtol": {"plugin_init"}, "pad_step": {"pad_init"},
                       "plugin_init": {"dlopen"}, "pad_init": {"dlopen"}}, parents
