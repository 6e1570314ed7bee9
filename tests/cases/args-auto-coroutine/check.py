"""--auto-args on a C++20 coroutine: the coroutine's own call shows its
parameter n, not the frame_ptr parameter of the actor and destroy
functions gcc splits from it (which it describes by the bare name
"counter"); those show their frame_ptr, named by their own symbols."""
import json


def check(ctx):
    calls = [json.loads(l) for l in ctx.run("replay", "--format", "json", check=True).stdout.splitlines()]
    ramp = [c for c in calls if c["name"] == "counter"]
    assert len(ramp) == 1 and ramp[0].get("args") == "n=3", ramp
    works = [c.get("args") for c in calls if c["name"] == "work"]
    assert works == ["i=0", "i=1", "i=2"], works
    parts = [c for c in calls if c["name"].startswith("counter [clone")]
    for c in parts:
        assert c.get("args", "frame_ptr=").startswith("frame_ptr="), c
