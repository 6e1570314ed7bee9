"""The html timeline (issue 13): a time axis with units that follow the
zoom, and zooming that reaches individual calls.  The page embeds at most
512 calls per time slice (512 slices), the longest of each; the 200 calls of
the quiet stretch are embedded even though the busy stretch before it
has 400,000 calls (but for those in a slice the busy stretch reaches into),
and hovering one, zoomed in, names it."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import browser  # noqa: E402  (tests/browser.py)


def check(ctx):
    counts = ctx.counts()
    assert counts["tiny"] == 400000 and counts["quiet_leaf"] == 200, counts
    out = os.path.join(ctx.work, "zoom.html")
    ctx.run("export", "-q", "-f", "html", "-o", out, check=True)
    with open(out, encoding="utf-8") as f:
        html = f.read()
    data = json.loads(re.search(r'<script type="application/json" id="fnt-data">(.*?)</script>', html, re.S).group(1))
    names = data["names"]
    spans = [data["threads"][0]["spans"][i:i + 4] for i in range(0, len(data["threads"][0]["spans"]), 4)]
    # every call embedded or counted in the density; each slice keeps at
    # most its 512 longest, and those at least as long as its threshold
    assert len(spans) + data["dropped"] == sum(counts.values()) and data["dropped"] > 0
    assert len(data["thresholds"]) == 512 and data["slice_keep"] == 512
    per = {}
    for s in spans:
        k = s[0] // data["slice_ns"]
        per[k] = per.get(k, 0) + 1
        assert s[1] >= data["thresholds"][k], (s, data["thresholds"][k])
    assert max(per.values()) <= 512, max(per.values())
    # every quiet call in a slice where no busy call starts is embedded: a
    # quiet stretch is shown call by call; the slices the busy stretch
    # reaches into keep their 512 longest calls, quiet or not
    quiet = [s for s in spans if names[s[3]] == "quiet_leaf"]
    everything = [json.loads(l) for l in ctx.run("replay", "-f", "json", check=True).stdout.splitlines()]
    all_quiet = [c for c in everything if c["name"] == "quiet_leaf"]
    busy = {c["start_ns"] // data["slice_ns"] for c in everything if c["name"] == "tiny"}
    assert len(all_quiet) == 200
    kept = {s[0] for s in quiet}
    alone = [c for c in all_quiet if c["start_ns"] // data["slice_ns"] not in busy]
    assert len(alone) >= 150 and all(c["start_ns"] in kept for c in alone), (len(alone), len(quiet))

    d = browser.open_browser(ctx.case)
    if d is None:
        return
    try:
        browser.load(d, out)
        assert browser.console_errors(d) == []
        # the axis: labels from the start of the trace, in ms for the whole run
        st = d.execute_script("return fntTimeline.state()")
        ticks = d.execute_script("return fntTimeline.axis()")
        assert len(ticks) >= 4 and ticks[0] == "0 ms" and all(t.endswith(" ms") for t in ticks), ticks
        # zoomed on 20 us around the 100th quiet call: us ticks, and the call
        # is drawn and named by the page's own hit test
        q = quiet[100]
        a = q[0] - 10000
        d.execute_script("fntTimeline.zoom(arguments[0], arguments[1])", a, a + 20000)
        ticks = d.execute_script("return fntTimeline.axis()")
        assert len(ticks) >= 4 and all(t.endswith(" us") for t in ticks), ticks
        w = d.execute_script("return document.getElementById('tl').width")
        x = (q[0] + q[1] / 2 - a) * w / 20000.0
        y = d.execute_script("return fntTimeline.rowY(0, arguments[0])", q[2])
        tip = d.execute_script("return fntTimeline.tip(arguments[0], arguments[1])", x, y)
        assert tip and tip.startswith("quiet_leaf\n"), tip
        # hovering with the mouse shows the same
        from selenium.webdriver.common.action_chains import ActionChains
        cv = d.find_element("css selector", "#tl")
        ActionChains(d).move_to_element_with_offset(cv, int(x - w / 2), int(y - cv.size["height"] / 2)).perform()
        shown = d.execute_script("return document.getElementById('tip').textContent")
        assert shown.startswith("quiet_leaf\n"), shown
        browser.screenshot(d, ctx, "html-zoom")
        # zoomed to 2 ms: ms... or us steps, in either case one unit throughout
        d.execute_script("fntTimeline.zoom(arguments[0], arguments[1])", st["start"], st["start"] + 2000000)
        ticks = d.execute_script("return fntTimeline.axis()")
        assert len({t.split()[1] for t in ticks}) == 1, ticks
        assert browser.console_errors(d) == []
    finally:
        d.quit()
