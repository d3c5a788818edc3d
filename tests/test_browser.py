"""The HTML report and the documentation site in a real browser: headless Chromium (Debian's
package, /usr/bin/chromium), driven over the Chrome DevTools protocol with a small client of our
own (websocket-client for the socket). Each page is loaded from a file with no network; the test
checks that the tables and plots render (non-zero boxes, a screenshot that is not blank), that the
witness is visible, and that the console stays free of errors. Skipped, with the reason, where
Chromium is not installed (`apt-get install -y chromium`: the README's test command does it where it
runs as root)."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "statements"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y "
                                                          "chromium); the browser tests need it")]


class Browser:
    """Headless Chromium with one page, over the DevTools protocol (flattened sessions)."""

    def __init__(self, profile: Path):
        websocket = pytest.importorskip("websocket", reason="websocket-client (the test extra) talks to Chromium")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
             f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,1600", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and len(port_file.read_text().splitlines()) >= 2):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                pytest.fail("Chromium did not open its DevTools port")
            time.sleep(0.1)
        port, path = port_file.read_text().splitlines()[:2]
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events: list = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    def call(self, method: str, session: bool = False, **params) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in self.events:
                if ev.get("method") == method:
                    self.events.remove(ev)
                    return ev
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def open(self, path: Path) -> None:
        self.events.clear()
        self.call("Page.navigate", session=True, url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def evaluate(self, expression: str):
        res = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"])
        return res["result"].get("value")

    def console_errors(self) -> list:
        errs = []
        for ev in self.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                errs.append(p["exceptionDetails"].get("text"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errs.append(" ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                errs.append(p["entry"].get("text"))
        return errs

    def screenshot(self):
        import matplotlib.image as mpimg

        png = base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png")["data"])
        return mpimg.imread(io.BytesIO(png), format="png")

    def close(self):
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def browser(tmp_path):
    b = Browser(tmp_path / "profile")
    yield b
    b.close()


_BOXES = """(sel => Array.from(document.querySelectorAll(sel)).map(e => {
    const r = e.getBoundingClientRect(); return [r.width, r.height]; }))"""


def test_html_report_renders_tables_plots_and_the_witness(tmp_path, browser):
    from pyfed.cli import main

    page = tmp_path / "report.html"
    files = [EXAMPLES / "young_small_constant.lean", EXAMPLES / "convex_no_noise.lean"]
    assert main(["check", *map(str, files), "--quick", "--no-profile", "--out", str(tmp_path / "ce"),
                 "--html", str(page)]) == 1
    browser.open(page)
    tables = browser.evaluate(_BOXES + "('table.verdicts')")
    assert len(tables) == 2 and all(w > 300 and h > 40 for w, h in tables), tables
    plots = browser.evaluate(_BOXES + "('figure.plot svg')")
    assert len(plots) == 2 and all(w > 200 and h > 80 for w, h in plots), plots
    witness = browser.evaluate("""Array.from(document.querySelectorAll('.witness')).map(e => {
        const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
        return [r.height, s.visibility, s.display, e.innerText]; })""")
    assert len(witness) == 2
    for height, visibility, display, text in witness:
        assert height > 20 and visibility == "visible" and display != "none"
        assert "left side" in text
    assert any("left side 2 > right side 3/2" in w[3] for w in witness)
    # the counterexample file is linked relative to the page and exists
    hrefs = browser.evaluate("Array.from(document.querySelectorAll('.witness a')).map(a => a.href)")
    assert hrefs and all(Path(h.removeprefix("file://")).is_file() for h in hrefs), hrefs
    shot = browser.screenshot()
    assert shot.std() > 0.05                                    # not a blank page
    red = ((abs(shot[..., 0] - 0xcf / 255) < 0.03) & (abs(shot[..., 1] - 0x22 / 255) < 0.03)).sum()
    assert red > 50                                             # the violated badges and witness bars are drawn
    assert browser.console_errors() == []


def test_documentation_site_renders_without_console_errors(tmp_path, browser):
    pytest.importorskip("sphinxarg", reason="the docs extra is not installed")
    out = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(ROOT / "docs"), str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for page, needle in (("index.html", "Check your first statement"),
                         ("tutorials/first-statement.html", "YoungHalf"),
                         ("reference/exit-statuses.html", "numerical library"),
                         ("reference/cli.html", "--junit-xml")):
        browser.open(out / page)
        assert needle in browser.evaluate("document.body.innerText"), page
        assert browser.console_errors() == [], page
    browser.open(out / "reference" / "exit-statuses.html")
    tables = browser.evaluate(_BOXES + "('article table, main table, div.body table')")
    assert tables and all(w > 200 and h > 100 for w, h in tables), tables
    assert browser.screenshot().std() > 0.05
