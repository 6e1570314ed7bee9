import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import browser  # noqa: E402  (tests/browser.py)

CALLS = 1 + 85 + 85000 + 170000 + 340000   # main, batch, step, small, tiny
BUDGET = 512 * 512                         # calls the timeline may embed: 512 a slice


def check(ctx):
    assert sum(ctx.counts().values()) == CALLS
    out = os.path.join(ctx.work, "big.html")
    t = time.time()
    p = ctx.run("export", "-d", ctx.data, "--format", "html", "-o", out, "-q")
    export_s = time.time() - t
    assert p.returncode == 0 and not p.stderr, p
    with open(out, encoding="utf-8") as f:
        html = f.read()
    data = json.loads(re.search(r'<script type="application/json" id="fnt-data">(.*?)</script>', html, re.S).group(1))
    spans = [data["threads"][0]["spans"][i:i + 4] for i in range(0, len(data["threads"][0]["spans"]), 4)]
    # every call is either embedded (at least threshold long) or aggregated
    assert data["calls"] == CALLS and len(data["threads"]) == 1
    assert 0 < len(spans) <= BUDGET and len(spans) + data["dropped"] == CALLS, (len(spans), data["dropped"])
    # each slice keeps its longest calls: none embedded is shorter than its
    # slice's threshold, none left out is longer than the longest threshold
    thr = data["thresholds"]
    assert all(s[1] >= thr[s[0] // data["slice_ns"]] for s in spans)
    assert 0 < max(thr) and data["threshold_ns"] <= max(thr), (data["threshold_ns"], max(thr))
    assert [s[0] for s in spans] == sorted(s[0] for s in spans)
    names = data["names"]
    assert {names[s[3]] for s in spans if s[2] == 0} == {"main"}
    assert sum(1 for s in spans if names[s[3]] == "batch") == 85   # the long calls are all there
    busy = sum(sum(a[1]) for a in data["threads"][0]["agg"])
    assert 0 < busy <= data["dropped"] * data["threshold_ns"], (busy, data["dropped"], data["threshold_ns"])
    assert "the other %d calls (none longer than" % data["dropped"] in html
    sys.stderr.write("%s: %d calls, %d embedded, threshold %d ns, %d bytes, exported in %.2f s\n" %
                     (ctx.case, CALLS, len(spans), data["threshold_ns"], len(html), export_s))

    d = browser.open_browser(ctx.case)
    if d is None:
        return
    try:
        load_s = browser.load(d, out)
        ready_ms = d.execute_script("return window.fntReady")
        assert browser.console_errors(d) == []
        assert ready_ms is not None and load_s < 20, (load_s, ready_ms)
        st = d.execute_script("return fntTimeline.state()")
        assert st["drawn"] > 0 and st["v0"] == data["start_ns"] and st["v1"] == data["end_ns"], st
        rows = d.execute_script("return document.querySelectorAll('#prof tbody tr').length")
        assert rows == 5, rows
        # zoomed in on one batch, its calls are drawn one by one (the batch
        # with the most embedded calls: which ones pass the threshold varies)
        def inside(b):
            return [s for s in spans if s[0] < b[0] + b[1] and s[0] + s[1] > b[0]]
        batches = [s for s in spans if names[s[3]] == "batch"]
        b = max(batches, key=lambda b: len(inside(b)))
        expected = len(inside(b))
        t0 = time.time()
        d.execute_script("fntTimeline.zoom(arguments[0], arguments[1])", b[0], b[0] + b[1])
        zoom_ms = (time.time() - t0) * 1000
        st2 = d.execute_script("return fntTimeline.state()")
        # calls narrower than a pixel share it with the call before them at
        # that depth: what the page draws, computed here the same way
        width = d.execute_script("return document.getElementById('tl').width")
        v0, v1 = st2["v0"], st2["v1"]
        sc, last, want = width / (v1 - v0), {}, 0
        for s in spans:
            if s[2] >= data["rows"] or s[0] > v1 or s[0] + s[1] < v0:
                continue
            x, w = (s[0] - v0) * sc, s[1] * sc
            if x < 0:
                w += x
                x = 0
            if w < 1:
                if last.get(s[2]) == int(x):
                    continue
                last[s[2]] = int(x)
            want += 1
        assert v1 - v0 == b[1] and want <= expected and abs(st2["drawn"] - want) <= max(3, want // 50), \
            (st2, want, expected)
        browser.screenshot(d, ctx, "html-big")
        assert browser.console_errors(d) == []
        sys.stderr.write("%s: html loaded in %.2f s (script done at %.0f ms), zoom redraw %.0f ms\n" %
                         (ctx.case, load_s, ready_ms, zoom_ms))
    finally:
        d.quit()
