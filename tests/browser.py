"""Open fntrace's svg/html exports in a real headless Chromium (Debian
packages chromium, chromium-driver, python3-selenium) for the end-to-end
cases' check.py.  open_browser() returns None, after saying why, only when
Chromium or its driver is not installed here; CI installs them, so there
the browser checks always run.  Screenshots go to <build>/artifacts/."""
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def open_browser(case, width=1300, height=1300):
    if not CHROMIUM or not DRIVER:
        sys.stderr.write("SKIP %s browser checks: chromium and chromium-driver are not installed "
                         "(apt-get install -y chromium chromium-driver python3-selenium)\n" % case)
        return None
    try:
        import selenium  # noqa: F401
    except ImportError:
        # a python3 other than Debian's (pyenv, venv): use the Debian package's copy
        sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        if os.path.exists("/usr/bin/chromium"):
            raise AssertionError("chromium is installed but python3-selenium is not: apt-get install -y python3-selenium")
        sys.stderr.write("SKIP %s browser checks: python3-selenium is not installed\n" % case)
        return None
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--allow-file-access-from-files", "--window-size=%d,%d" % (width, height)):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Starting chromium can outlast chromedriver's patience on a loaded
    # machine, which then drops the session request (ConnectionResetError,
    # seen once in make check with two CPU hogs): that is the browser's
    # start, not what the case checks, so it is tried again, up to 3 times
    for attempt in range(3):
        try:
            return webdriver.Chrome(service=Service(DRIVER), options=opts)
        except Exception as e:          # (selenium's and urllib3's own kinds)
            if attempt == 2 or not isinstance(e, (ConnectionError, OSError)) and \
                    "Connection" not in type(e).__name__ + str(e):
                raise
            time.sleep(2)


def load(driver, path):
    """Open a file and return the console messages logged while loading, and the load time in s."""
    driver.get_log("browser")
    t = time.time()
    driver.get("file://" + os.path.abspath(path))
    return time.time() - t


def console_errors(driver):
    return [m for m in driver.get_log("browser") if m.get("level") in ("SEVERE", "ERROR")]


def screenshot(driver, ctx, name):
    d = os.path.join(os.path.dirname(ctx.fntrace), "artifacts")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "%s-%s-%s.png" % (ctx.case, ctx.build, name))
    driver.save_screenshot(path)
    return path


def serve(root):
    """an HTTP server on 127.0.0.1 (a free port) for the files under root"""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def end_headers(self):      # the viewer and the files are on two ports
            self.send_header("Access-Control-Allow-Origin", "*")
            super().end_headers()
    h = functools.partial(Quiet, directory=root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def speedscope_dir(ctx):
    """build/node_modules/speedscope (npm install when absent); None when node/npm are missing"""
    build = os.path.dirname(ctx.fntrace)
    rel = os.path.join(build, "node_modules", "speedscope", "dist", "release")
    if os.path.exists(os.path.join(rel, "index.html")):
        return rel
    if not shutil.which("npm"):
        sys.stderr.write("SKIP %s speedscope checks: npm is not installed (apt-get install -y nodejs npm)\n" % ctx.case)
        return None
    lock = os.path.join(build, ".npm-speedscope.lock")
    import fcntl
    with open(lock, "w") as lf:
        fcntl.flock(lf, fcntl.LOCK_EX)       # the four builds run at once
        if not os.path.exists(os.path.join(rel, "index.html")):
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", build, "speedscope@1.25.0"],
                           check=True, capture_output=True)
    return rel


def page_text(d, want, timeout=60):
    """the page's text once every string of want is in it (or after timeout s)"""
    end = time.time() + timeout
    while True:
        t = d.execute_script("return document.body ? document.body.innerText : ''")
        if all(w in t for w in want) or time.time() > end:
            return t
        time.sleep(0.2)
