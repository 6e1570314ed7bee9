"""--auto-args and gcc -O2's clones and split functions (issue 12):
- hot_cold, split in hot and cold parts (DW_AT_ranges), gets its arguments
  (it was skipped);
- the .isra/.constprop clones, whose DWARF is the original's, get no
  arguments rather than the original's, which they do not take (they
  printed garbage), and no name gets two specs."""
import json
import os


def check(ctx):
    calls = [json.loads(l) for l in ctx.run("replay", "--format", "json", check=True).stdout.splitlines()]
    hc = [c for c in calls if c["name"] == "hot_cold"]
    assert len(hc) == 1 and hc[0].get("args") == "x=5, y=6" and hc[0].get("retval") == "11", hc
    clones = [c for c in calls if "." in c["name"]]
    assert len(clones) == 3 and all(not c.get("args") for c in clones), clones
    specs = [s.split("@")[0] for s in open(os.path.join(ctx.data, "argspecs")).read().split(";") if "@" in s]
    assert len(specs) == len(set(specs)), sorted(specs)
