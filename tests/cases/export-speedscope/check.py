import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import exportcheck as X  # noqa: E402
import browser  # noqa: E402

FUNCS = {"main", "worker", "mid", "leaf", "fact"}


def chrome_as_speedscope_sees_it(events):
    """speedscope 1.25's trace-event importer, in short: per thread, B and E
    events sorted by time apart; at equal times a B goes first only if its
    name and JSON args equal the E's; an E must carry its B's name.  Returns
    the frame names it builds (name plus JSON args) and checks it pairs every
    E with the B on top of its stack."""
    names = set()
    per = {}
    for e in events:
        if e["ph"] in "BE":
            per.setdefault((e["pid"], e["tid"]), []).append(e)
    for evs in per.values():
        key = lambda e: e["name"] + (" " + str(e["args"]) if "args" in e else "")
        bs = sorted((e for e in evs if e["ph"] == "B"), key=lambda e: X.ns(e["ts"]))
        es = sorted((e for e in evs if e["ph"] == "E"), key=lambda e: X.ns(e["ts"]))
        st = []
        while bs or es:
            if es and (not bs or X.ns(es[0]["ts"]) < X.ns(bs[0]["ts"]) or
                       (X.ns(es[0]["ts"]) == X.ns(bs[0]["ts"]) and key(bs[0]) != key(es[0]))):
                e = es.pop(0)
                assert st and st[-1]["name"] == e["name"], "speedscope would end %r on %r" % (e, st[-1:])
                st.pop()
            else:
                st.append(bs[0])
                names.add(key(bs.pop(0)))
        assert not st
    return names


def check(ctx):
    want = X.report_profile(ctx)
    assert set(want) == FUNCS, want
    # the chrome export: well-formed for speedscope (E named, no args on B), round trip exact
    chrome = X.export(ctx, "chrome", "-q", out=os.path.join(ctx.work, "trace.json"))
    events = X.load_chrome(chrome)
    slices, tnames, pnames, _ = X.chrome_threads(events)
    X.same_profile(X.profile(slices), want, "chrome export")
    assert chrome_as_speedscope_sees_it(events) == FUNCS
    assert all(s[3]["src"].endswith("export-speedscope/prog.c:%d" % {"leaf": 7, "mid": 8, "fact": 9, "worker": 10,
                                                                      "main": 16}[s[2]])
               for sl in slices.values() for s in sl), slices
    # speedscope's own format: a profile per thread, the same calls and times as report
    ss = X.export(ctx, "speedscope", "-q", out=os.path.join(ctx.work, "trace.speedscope.json"))
    profs, frames = X.load_speedscope(ss)
    assert sorted(n.split(" (")[0] for n in profs) == ["main-thread", "worker-1"], list(profs)
    assert sorted(f["name"] for f in frames) == sorted(FUNCS), frames
    X.same_profile(X.profile(profs), want, "speedscope export")
    # and the same slices, to the nanosecond, as the chrome export's
    assert sorted(sorted(s[:3] for s in sl) for sl in profs.values()) == \
        sorted(sorted(s[:3] for s in sl) for sl in slices.values())
    folded = X.export(ctx, "folded", "-q", out=os.path.join(ctx.work, "trace.folded"))

    # the real viewer
    rel = browser.speedscope_dir(ctx)
    if rel is None:
        return
    d = browser.open_browser(ctx.case)
    if d is None:
        return
    srv = browser.serve(ctx.work)
    port = srv.server_address[1]
    ui = browser.serve(rel)
    try:
        # per thread, what the sandwich view (key 3) lists; 'n' goes to the next profile
        threads = [("main-thread", {"main", "mid", "leaf"}), ("worker-1", {"worker", "mid", "leaf", "fact"})]
        for name, path, profiles in (("speedscope", ss, threads), ("chrome", chrome, threads),
                                     ("folded", folded, [("trace.folded", FUNCS)])):
            url = "http://127.0.0.1:%d/index.html#profileURL=http://127.0.0.1:%d/%s" % (
                ui.server_address[1], port, os.path.basename(path))
            d.get("about:blank")        # a new hash alone would not reload the viewer
            d.get(url)
            text = browser.page_text(d, [profiles[0][0]])
            assert profiles[0][0] in text and "rror" not in text and "wrong" not in text, (name, text, d.get_log("browser"))
            d.find_element("css selector", "body").send_keys("3")
            for i, (pname, funcs) in enumerate(profiles):
                if i:
                    d.find_element("css selector", "body").send_keys("n")
                text = browser.page_text(d, [pname] + sorted(funcs))
                browser.screenshot(d, ctx, "%s-%d" % (name, i))
                if len(profiles) > 1:
                    assert "(%d/%d)" % (i + 1, len(profiles)) in text, (name, text)
                table = text.split("Symbol Name", 1)[-1].split("\n")
                shown = {l.strip() for l in table if l.strip() and not l.strip()[0].isdigit()}
                # exactly the thread's functions, with their bare names (no args folded in)
                assert pname in text and shown == funcs, (name, pname, shown, text)
            assert browser.console_errors(d) == [], (name, browser.console_errors(d))
    finally:
        d.quit()
        srv.shutdown()
        ui.shutdown()
