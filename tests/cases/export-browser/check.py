import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import browser  # noqa: E402  (tests/browser.py)

FUNCS = {"main", "worker", "work", "mid", "leaf", "fact", "twice<int>"}


def export(ctx, fmt, name, *args):
    out = os.path.join(ctx.work, name)
    p = ctx.run("export", "-d", ctx.data, "--format", fmt, "-o", out, "--quiet", *args)
    assert p.returncode == 0 and not p.stderr, p
    with open(out, encoding="utf-8") as f:
        return out, f.read()


def fmt_ns(ns):
    """report's duration text, fraction truncated"""
    if ns < 1000000:
        return "%d.%03d us" % (ns // 1000, ns % 1000)
    if ns < 1000000000:
        return "%d.%03d ms" % (ns // 1000000, ns // 1000 % 1000)
    return "%d.%03d s" % (ns // 1000000000, ns // 1000000 % 1000)


def check_files(ctx):
    """what can be checked without a browser"""
    svg_path, svg = export(ctx, "svg", "flame.svg", "--value", "calls")
    assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', ""), "the svg must not load anything"
    assert 'data-n="twice&lt;int&gt;"' in svg and "<title>twice&lt;int&gt; (" in svg
    _, html = export(ctx, "html", "report.html")
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html), "the html must not load anything"
    m = re.search(r'<script type="application/json" id="fnt-data">(.*?)</script>', html, re.S)
    assert m and "</" not in m.group(1) and "twice\\u003cint\\u003e" in m.group(1)
    data = json.loads(m.group(1))
    # the profile holds report's numbers, exactly
    report = {r["function"]: r for r in ctx.csv()}
    prof = {data["names"][r[0]]: r[1:] for r in data["profile"]}
    assert set(prof) == set(report) == FUNCS, (prof, report)
    for name, r in report.items():
        assert prof[name] == [int(r[k]) for k in ("calls", "total_ns", "self_ns", "avg_ns", "min_ns", "max_ns")], \
            (name, prof[name], r)
    # two threads, every call embedded (a small trace needs no threshold)
    calls = sum(int(r["calls"]) for r in report.values())
    assert data["calls"] == calls == 29 and data["dropped"] == 0 and data["threshold_ns"] == 0, data["calls"]
    assert len(data["threads"]) == 2 and sum(len(t["spans"]) // 4 for t in data["threads"]) == calls
    assert sorted(t["calls"] for t in data["threads"]) == [13, 16], [t["calls"] for t in data["threads"]]
    return svg_path, data


def check(ctx):
    svg_path, data = check_files(ctx)
    # by calls, every frame is wide enough to see and click (by time, main's
    # own time, spent creating and joining the thread, dwarfs the rest)
    calls_path = svg_path
    time_path, _ = export(ctx, "svg", "time.svg")
    inv_path, _ = export(ctx, "svg", "icicle.svg", "--inverted", "--value", "calls", "--title", "icicle </svg> & co")
    html_path, _ = export(ctx, "html", "calls.html", "--value", "calls")

    d = browser.open_browser(ctx.case)
    if d is None:
        return
    try:
        # --- the svg by time: loads, main is the widest frame
        browser.load(d, time_path)
        assert browser.console_errors(d) == []
        names = d.execute_script("return [].map.call(document.querySelectorAll('g.fnt-f'), g => g.getAttribute('data-n'))")
        assert names[0] == "main" and set(names) <= FUNCS, names
        browser.screenshot(d, ctx, "svg")
        # --- by calls: names, hover, click to zoom, reset
        browser.load(d, calls_path)
        assert browser.console_errors(d) == []
        names = d.execute_script("return [].map.call(document.querySelectorAll('g.fnt-f'), g => g.getAttribute('data-n'))")
        assert set(names) == FUNCS, names
        labels = d.execute_script("return [].map.call(document.querySelectorAll('g.fnt-f text'), t => t.textContent)")
        assert "main" in labels and "worker" in labels, labels
        from selenium.webdriver.common.action_chains import ActionChains
        work = d.find_element("css selector", 'g.fnt-f[data-n="work"] rect')
        ActionChains(d).move_to_element(work).perform()
        det = d.execute_script("return document.querySelector('.fnt-details').textContent")
        # main;work: one call, 15 with everything under it (the width)
        assert det == "work (1 call, 15 with its callees, 51.72%)", det
        d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", work)
        st = d.execute_script("""var s=document.querySelector('svg');
            var w=document.querySelector('g.fnt-f[data-n="work"] rect');
            var hidden=[].filter.call(document.querySelectorAll('g.fnt-f'), g => g.style.display==='none').length;
            return [s.getAttribute('data-zoomed'), +w.getAttribute('width'), +s.getAttribute('data-fw'), hidden]""")
        assert st[0] == "work" and st[1] >= st[2] - 1 and st[3] > 0, st
        browser.screenshot(d, ctx, "svg-zoomed")
        d.find_element("css selector", ".fnt-reset").click()
        assert d.execute_script("return document.querySelector('svg').getAttribute('data-zoomed')") is None
        assert d.execute_script("return [].every.call(document.querySelectorAll('g.fnt-f'), g => g.style.display!=='none')")
        assert browser.console_errors(d) == []

        # --- the svg's search box (flamegraph.pl's): a regex, matching frames
        # highlighted, their share of the total at the bottom right
        def search(q):
            # clicking 'Search' asks for the text (window.prompt); headless
            # Chromium does not take typed prompt text, so the answer goes
            # to the function the prompt hands it to
            d.find_element("css selector", ".fnt-search").click()
            al = d.switch_to.alert
            assert al.text == "Search (regular expression or text):", al.text
            al.dismiss()
            d.execute_script("document.querySelector('svg').fntSearchText(arguments[0])", q)
            return d.execute_script("""var s=document.querySelector('svg');return [s.getAttribute('data-matched'),
                document.querySelector('.fnt-matched').textContent, document.querySelector('.fnt-search').textContent,
                [].map.call(document.querySelectorAll('g.fnt-match'), g => g.getAttribute('data-n'))]""")
        ncalls = {r["function"]: int(r["calls"]) for r in ctx.csv()}
        st = search("^(leaf|twice)")
        share = 100.0 * (ncalls["leaf"] + ncalls["twice<int>"]) / 29   # both are always leaves: their own calls
        assert abs(float(st[0]) - share) < 0.01 and st[1] == "Matched: %.1f%%" % share, (st, share)
        assert set(st[3]) == {"leaf", "twice<int>"} and st[2] == "Reset search", st
        browser.screenshot(d, ctx, "svg-search")
        d.find_element("css selector", ".fnt-search").click()      # 'Reset search'
        assert d.execute_script("return [document.querySelectorAll('g.fnt-match').length, "
                                "document.querySelector('.fnt-search').textContent]") == [0, "Search"]
        # nested matches count once: a leaf under a matching fact is inside
        # its frame; the expected share is that of the folded stacks with a
        # matching frame anywhere
        import re as re_
        _, folded = export(ctx, "folded", "calls.folded", "--value", "calls")
        stacks = [l.rsplit(" ", 1) for l in folded.splitlines()]
        def share_of(rx):
            hit = sum(int(v) for st_, v in stacks if any(re_.search(rx, f) for f in st_.split(";")))
            return 100.0 * hit / sum(int(v) for _, v in stacks)
        st = search("fact|leaf")
        want = share_of("fact|leaf")
        assert set(st[3]) == {"fact", "leaf"} and abs(float(st[0]) - want) < 0.01, (st, want)
        assert st[1] == "Matched: %.1f%%" % want, (st, want)
        d.find_element("css selector", ".fnt-search").click()
        # not a valid regular expression: taken as text
        st = search("twice<int")
        assert set(st[3]) == {"twice<int>"} and abs(float(st[0]) - share_of("twice<int")) < 0.01, st
        d.find_element("css selector", ".fnt-search").click()
        st = search("fact(")
        assert st[3] == [] and st[1] == "Matched: 0.0%", st
        d.execute_script("document.querySelector('svg').fntSearchText('work(|x')")   # text: nothing, no error
        assert browser.console_errors(d) == []
        d.find_element("css selector", ".fnt-search").click()

        # --- the svg's width follows the window: frames scale, labels fit their frames
        def layout():
            return d.execute_script("""var s=document.querySelector('svg'),r=s.getBoundingClientRect();
                var w=n=>+document.querySelector('g.fnt-f[data-n="'+n+'"] rect').getAttribute('width');
                var over=[].filter.call(document.querySelectorAll('g.fnt-f'), g => g.lastElementChild.textContent &&
                    g.lastElementChild.getComputedTextLength() > +g.children[1].getAttribute('width')).length;
                var cut=[].filter.call(document.querySelectorAll('g.fnt-f text'), t => t.textContent.endsWith('..')).length;
                return [r.width, window.innerWidth, w('main'), w('work'), over, cut, s.getAttribute('viewBox'),
                        w('worker')]""")
        def resized(w):
            # the window's resize event reaches the page after set_window_size
            # returns, at the browser's next frame: wait for the svg to refit
            # (and the renderer may not have the new width yet either)
            d.set_window_size(w, 1300)
            end = time.time() + 30
            while True:
                lay = layout()
                if abs(lay[1] - w) <= 20 and lay[6].split()[2] == str(round(lay[0])) and abs(lay[0] - lay[1]) <= 20:
                    return lay
                assert time.time() < end, ("the svg did not refit to a window %d wide" % w, lay)
                time.sleep(0.05)
        wide = layout()
        narrow = resized(600)
        for lay in (wide, narrow):
            assert abs(lay[0] - lay[1]) <= 20 and lay[4] == 0, lay          # the whole window, no label overflows
            assert lay[6].split()[2] == str(round(lay[0])), lay              # one user unit is one pixel
            assert abs(lay[2] + lay[7] - (lay[0] - 20 - 1)) < 1, lay         # the two threads' roots span the width
        assert narrow[0] < wide[0] * 0.6, (wide, narrow)
        assert abs(narrow[3] / wide[3] - (narrow[0] - 20) / (wide[0] - 20)) < 0.01, (wide, narrow)  # work: 15/29 at both
        assert narrow[5] > wide[5], (wide, narrow)                          # more labels trimmed when narrow
        browser.screenshot(d, ctx, "svg-narrow")
        resized(1300)

        # --- the icicle: roots at the top, the title escaped
        browser.load(d, inv_path)
        assert browser.console_errors(d) == []
        ys = d.execute_script("""var y=n=>+document.querySelector('g.fnt-f[data-n="'+n+'"] rect').getAttribute('y');
            return [y('main'), y('work'), document.querySelector('.fnt-title').textContent]""")
        assert ys[0] < ys[1] and ys[2] == "icicle </svg> & co", ys

        # --- the html: profile table, search, timeline zoom, flame graph
        t = browser.load(d, html_path)
        assert browser.console_errors(d) == []
        rows = d.execute_script("""return [].map.call(document.querySelectorAll('#prof tbody tr'),
            tr => [].map.call(tr.cells, c => c.textContent))""")
        report = {r["function"]: r for r in ctx.csv()}
        assert {r[6] for r in rows} == FUNCS, rows
        for r in rows:
            want = report[r[6]]
            assert r[:6] == [fmt_ns(int(want["total_ns"])), fmt_ns(int(want["self_ns"])), want["calls"],
                             fmt_ns(int(want["avg_ns"])), fmt_ns(int(want["min_ns"])), fmt_ns(int(want["max_ns"]))], (r, want)
        # sorted by total time, then by calls when that header is clicked
        totals = [int(report[r[6]]["total_ns"]) for r in rows]
        assert totals == sorted(totals, reverse=True)
        d.find_element("css selector", '#prof th[data-k="1"]').click()
        calls = d.execute_script("return [].map.call(document.querySelectorAll('#prof tbody tr'), tr => +tr.cells[2].textContent)")
        assert calls == sorted(calls, reverse=True) and calls[0] == 8, calls
        flame_names = d.execute_script("return [].map.call(document.querySelectorAll('#flame g.fnt-f'), g => g.getAttribute('data-n'))")
        assert set(flame_names) == FUNCS
        # search highlights the matching function in the table and the flame graph
        box = d.find_element("css selector", "#search")
        box.send_keys("TWICE")
        st = d.execute_script("""return [document.getElementById('matchinfo').textContent,
            [].map.call(document.querySelectorAll('#prof tr.match'), tr => tr.cells[6].textContent),
            [].map.call(document.querySelectorAll('#flame g.fnt-match'), g => g.getAttribute('data-n'))]""")
        assert st[0].startswith("1 function match"), st
        assert st[1] == ["twice<int>"] and st[2] == ["twice<int>"] * 2, st
        # the timeline: every call drawn at first, zoom in halves the range
        s0 = d.execute_script("return fntTimeline.state()")
        assert s0["v0"] == data["start_ns"] and s0["v1"] == data["end_ns"] and s0["drawn"] > 0, s0
        d.find_element("css selector", "#zin").click()
        s1 = d.execute_script("return fntTimeline.state()")
        assert abs((s1["v1"] - s1["v0"]) * 2 - (s0["v1"] - s0["v0"])) < 2, (s0, s1)
        # double-clicking a call fits the timeline to it: main, in the first lane's first row
        d.find_element("css selector", "#zreset").click()
        assert data["names"][data["threads"][0]["spans"][3]] == "main"   # the main thread comes first
        main = data["threads"][0]["spans"][:4]
        d.execute_script("""var cv=document.getElementById('tl'),r=cv.getBoundingClientRect(),st=fntTimeline.state();
            var x=(arguments[0]+arguments[1]/2-st.v0)/(st.v1-st.v0)*cv.width;
            var y=18+5;
            cv.dispatchEvent(new MouseEvent('dblclick',{bubbles:true,clientX:r.left+x,clientY:r.top+y}));""",
            main[0], main[1])
        s2 = d.execute_script("return fntTimeline.state()")
        assert s2["v0"] == main[0] and s2["v1"] == main[0] + max(main[1], 100), (s2, main)
        # click zoom in the inline flame graph
        d.find_element("css selector", '#flame g.fnt-f[data-n="mid"] rect').click()
        assert d.execute_script("return document.querySelector('#flame svg').getAttribute('data-zoomed')") == "mid"
        browser.screenshot(d, ctx, "html")
        assert browser.console_errors(d) == []
        sys.stderr.write("%s %s: html loaded in %.2f s\n" % (ctx.case, ctx.build, t))
    finally:
        d.quit()
