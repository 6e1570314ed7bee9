import json

def check(ctx):
    # replay --format json: one object per call with the same values as the text replay
    lines = ctx.run("replay", "--format", "json", check=True).stdout.splitlines()
    calls = [json.loads(l) for l in lines]
    byname = {c["name"]: c for c in calls}
    assert [c["name"] for c in calls] == ["greet", "paint", "area", "mk", "after_big", "narrow", "main"], calls
    assert byname["greet"]["args"] == 'name="world", times=3' and byname["greet"]["retval"] == "6", byname["greet"]
    assert byname["paint"]["retval"] == "BLUE" and byname["mk"]["retval"] == "{...}", calls
    assert byname["greet"]["depth"] == 1 and byname["main"]["depth"] == 0, calls
    assert all(c["end"] == "return" and c["end_ns"] >= c["start_ns"] for c in calls), calls
