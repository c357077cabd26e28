# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm serve's page in a real browser: headless Chromium driven through
Selenium (Debian: chromium, chromium-driver, python3-selenium). Only
localhost URLs are opened. With $RFM_SCREENSHOT set (make
monitor-screenshot), test_page_at_a_glance saves the page there as a PNG."""
import os
import re
import shutil
import signal
import struct

import pytest

from conftest import ok
from serve_helpers import NOT_BUILT, serve  # noqa: F401 (fixture)

pytestmark = NOT_BUILT

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="python3-selenium is not installed (Debian: python3-selenium)")
if not CHROMIUM or not os.access(CHROMEDRIVER, os.X_OK):
    pytest.skip("chromium or chromedriver is not installed (Debian: chromium, chromium-driver)",
                allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# Every wait is bounded: a page that never shows the value fails the test.
WAIT_S = 10


@pytest.fixture
def browser(tmp_path):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,900",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER) \
        if hasattr(webdriver, "ChromeService") else \
        __import__("selenium.webdriver.chrome.service", fromlist=["Service"]).Service(CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    yield driver
    driver.quit()


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


# The page redraws its tables on every snapshot: an element found by one
# call may be gone at the next, so each look is one script in the page.
def cell_text(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css)


def has_class(driver, css, cls):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "return e ? e.classList.contains(arguments[1]) : null;", css, cls)


# One script in the page: the element scrolled into view, the element a
# user's pointer would hit at its centre looked up and pressed (pointer
# down and up, then the click: the page takes a click on the pointer going
# down, tools/serve/app.js), with no redraw in between (the table is redrawn with every snapshot: a WebDriver
# find-then-click, two round trips, missed every redraw for 10 s on a loaded
# CI host). A cell painted under another card is refused, as a real click
# would be intercepted.
_CLICK = """
const e = document.querySelector(arguments[0]);
if (!e) return "missing";
e.scrollIntoView({block: "center", inline: "center"});
const r = e.getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
const hit = document.elementFromPoint(x, y);
if (!hit || !(e === hit || e.contains(hit))) return "covered by " + (hit ? hit.outerHTML.slice(0, 80) : "nothing");
const at = {bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0,
            pointerType: "mouse", isPrimary: true};
hit.dispatchEvent(new PointerEvent("pointerdown", at));
hit.dispatchEvent(new PointerEvent("pointerup", at));
hit.click();
return "clicked";
"""


def click(driver, css):
    """A click on @css where a user's pointer would land; fails when the
    element never shows up or something else covers it."""
    import time
    give_up = time.monotonic() + WAIT_S
    outcome = "missing"
    while time.monotonic() < give_up:
        outcome = driver.execute_script(_CLICK, css)
        if outcome == "clicked":
            return
        if outcome.startswith("covered"):
            break
    pytest.fail(f"{css}: no click for {WAIT_S} s: {outcome}")


def count(driver, css):
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length;", css)


def test_page_live(serve, browser, rfm, net, hold_node):
    s = serve("--rate", "20")
    browser.get(s.url + "/")
    wait = WebDriverWait(browser, WAIT_S)
    wait.until(lambda d: cell_text(d, "#status") == "live")
    assert browser.title.startswith("rfm serve")
    assert console_errors(browser) == []

    # The counters of what the server received: it runs no health monitor,
    # so no node_up/node_down/link rows that would read 0 while a node is
    # down (the Nodes table shows that).
    def counter_names(d):
        return d.execute_script("return [...document.querySelectorAll('#stats td:first-child')]"
                                ".map(e => e.textContent);")
    wait.until(lambda d: "received intr1" in counter_names(d))
    names = counter_names(browser)
    assert "received overflow" in names
    assert not {"received node_up", "received node_down", "received link"} & set(names), names

    # A variable set by another process shows its new value.
    ok(rfm("-u", net.node(2), "set", "--force", "--layout", s.layout, "ctl.temp", "33.5"))
    temp = 'tr[data-name="ctl.temp"] td.value'
    wait.until(lambda d: cell_text(d, temp) == "33.5")
    assert has_class(browser, 'tr[data-name="ctl.temp"]', "out-of-range") is False

    # An out-of-range value (written raw: the library refuses it) is marked.
    word = struct.unpack("<Q", struct.pack("<d", 95.0))[0]
    ok(rfm("-u", net.node(2), "poke64", "8", hex(word)))
    wait.until(lambda d: cell_text(d, temp) == "95")
    wait.until(lambda d: has_class(d, 'tr[data-name="ctl.temp"]', "out-of-range"))
    assert has_class(browser, temp, "out-of-range") is True
    assert has_class(browser, 'tr[data-name="ctl.gains"]', "out-of-range") is False

    # A node started shows up; closed, it leaves the table (or shows down).
    held = hold_node(net.node(3))
    node3 = 'tr[data-node="3"] td:nth-child(2)'
    # It runs no health monitor: attached, but nothing says it works.
    wait.until(lambda d: cell_text(d, node3) == "attached, no heartbeat")
    assert held.release() == 0
    # It closed: it left (a node without heartbeat then has no row).
    wait.until(lambda d: cell_text(d, node3) in (None, "left"))

    # The histogram of the --hist file: one bar per non-empty bin.
    svg = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hist svg"))[0]
    assert svg.get_attribute("data-bins") == "3"
    assert count(browser, "#hist svg rect") == 3
    heights = browser.execute_script(
        "return [...document.querySelectorAll('#hist svg rect')]"
        ".map(r => Number(r.getAttribute('height')));")
    # Bins of 5, 40 and 10: the middle bar is the tallest, each in proportion.
    assert heights[1] == max(heights) and heights[0] == pytest.approx(heights[1] / 8)
    assert console_errors(browser) == []



def test_page_shows_stale_data_and_disconnection(browser, net, tmp_path):
    """A writer killed: its values grey, named stale, with the writer; the
    server gone: "disconnected, data from HH:MM:SS" over the whole page."""
    from serve_helpers import Server
    from test_serve_stale import LAYOUT, beating_node
    layout = tmp_path / "stale.yaml"
    layout.write_text(LAYOUT)
    s = Server(net.node(1), "--layout", str(layout), "--rate", "20")
    writer = beating_node(net, 4)
    try:
        browser.get(s.url + "/")
        wait = WebDriverWait(browser, WAIT_S)
        wait.until(lambda d: cell_text(d, 'tr[data-node="4"] td:nth-child(2)') == "up")
        flow = 'tr[data-name="plant.flow"]'
        assert cell_text(browser, flow + " td.writer") == "4"
        assert cell_text(browser, flow + " td.freshness") == "fresh"
        assert has_class(browser, flow, "stale") is False
        # The server's own node beats: its health monitor.
        assert cell_text(browser, 'tr[data-node="1"] td:nth-child(2)') == "up"
        # A writer that never attached: stale from the start.
        assert has_class(browser, 'tr[data-name="far.x"]', "stale") is True
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        wait.until(lambda d: has_class(d, flow, "stale"))
        # Killed: its writer crashed (it did not leave).
        assert cell_text(browser, flow + " td.freshness") == "stale (writer crashed)"
        assert has_class(browser, 'tr[data-name="ctl.mode"]', "stale") is False
        assert browser.execute_script("return document.getElementById('disconnected').hidden")
    finally:
        if writer.poll() is None:
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait()
        rc, err = s.stop()
    assert rc == 0, err
    wait.until(lambda d: d.execute_script(
        "return !document.getElementById('disconnected').hidden"))
    banner = cell_text(browser, "#disconnected")
    assert re.fullmatch(r"disconnected, data from \d\d:\d\d:\d\d", banner), banner
    assert has_class(browser, "body", "disconnected") is True


def test_page_shows_why_a_value_is_stale(browser, net, tmp_path):
    """A value unchanged past the layout's stale_after is greyed with the
    reason; a new value makes it fresh again."""
    from serve_helpers import Server
    from test_serve_stale import PERIOD_LAYOUT
    layout = tmp_path / "period.yaml"
    # Fresh for 2 s after a write: longer than the driver's polls.
    layout.write_text(PERIOD_LAYOUT.replace("5s", "2s"))
    s = Server(net.node(1), "--layout", str(layout), "--rate", "20", "--allow-write")
    try:
        browser.get(s.url + "/")
        wait = WebDriverWait(browser, WAIT_S)
        count = 'tr[data-name="ctl.count"]'
        wait.until(lambda d: has_class(d, count, "stale"))
        assert re.fullmatch(r"stale \(not written for \d+\.\d s\)",
                            cell_text(browser, count + " td.freshness"))
        assert cell_text(browser, 'tr[data-name="ctl.mode"] td.freshness') == "fresh"
        status, got = s.post("/api/vars", {"name": "ctl.count", "value": 9}, token=s.token)
        assert status == 200, got
        wait.until(lambda d: cell_text(d, count + " td.freshness") == "fresh")
        assert has_class(browser, count, "stale") is False
    finally:
        rc, err = s.stop()
    assert rc == 0, err


def test_page_shows_node_down_then_up(serve, browser, net):
    """A peer killed with SIGKILL: its row says "down since HH:MM:SS" with
    its down count, the list of changes and the totals say so; started
    again, "up since" with its up count. A node beating when the server
    started was seen up then, which counts no up."""
    from test_serve_stale import beating_node
    first = beating_node(net, 3)
    s = serve("--rate", "20")
    peer = beating_node(net, 2)
    row = 'tr[data-node="2"] '
    hhmmss = r"\d\d:\d\d:\d\d"
    try:
        browser.get(s.url + "/")
        wait = WebDriverWait(browser, WAIT_S)
        wait.until(lambda d: cell_text(d, row + "td.since") is not None and
                   cell_text(d, row + "td.since").startswith("up since"))
        assert re.fullmatch(rf"up since {hhmmss}", cell_text(browser, row + "td.since"))
        assert (cell_text(browser, row + "td.downs"), cell_text(browser, row + "td.ups")) == \
            ("0", "1")
        # Node 3 may have started beating just before the server, or after.
        wait.until(lambda d: (cell_text(d, 'tr[data-node="3"] td.since') or "").startswith("up"))
        seen3 = cell_text(browser, 'tr[data-node="3"] td.since')
        assert re.fullmatch(rf"up since {hhmmss}( \(server start\))?", seen3), seen3
        ups3 = 0 if seen3.endswith("(server start)") else 1
        assert cell_text(browser, 'tr[data-node="3"] td.ups') == str(ups3)

        os.kill(peer.pid, signal.SIGKILL)
        peer.wait()
        # Killed: crashed, not left; since when, and why it is down.
        wait.until(lambda d: cell_text(d, row + "td:nth-child(2)") == "crashed")
        wait.until(lambda d: (cell_text(d, row + "td.since") or "").startswith("crashed since"))
        assert re.fullmatch(rf"crashed since {hhmmss}", cell_text(browser, row + "td.since"))
        assert (cell_text(browser, row + "td.downs"), cell_text(browser, row + "td.ups")) == \
            ("1", "1")
        wait.until(lambda d: count(d, '#node-log li[data-node="2"][data-change="down"]') == 1)
        assert re.fullmatch(rf"{hhmmss} node 2 down \(crashed\)", cell_text(
            browser, '#node-log li[data-node="2"][data-change="down"]'))
        wait.until(lambda d: cell_text(d, "#node-changes") ==
                   f"node changes since the server started: 1 down, {1 + ups3} up")

        peer = beating_node(net, 2)
        wait.until(lambda d: cell_text(d, row + "td.ups") == "2")
        assert cell_text(browser, row + "td:nth-child(2)") == "up"
        assert re.fullmatch(rf"up since {hhmmss}", cell_text(browser, row + "td.since"))
        assert cell_text(browser, row + "td.downs") == "1"
        wait.until(lambda d: d.execute_script(
            "const l = document.querySelector('#node-log li');"
            "return l ? l.dataset.node + ' ' + l.dataset.change : null;") == "2 up")
        wait.until(lambda d: cell_text(d, "#node-changes") ==
                   f"node changes since the server started: 1 down, {2 + ups3} up")
        assert console_errors(browser) == []
    finally:
        for p in (peer, first):
            if p.poll() is None:
                os.kill(p.pid, signal.SIGKILL)
                p.wait()


GLANCE_LAYOUT = """\
version: 1
name: glance
window: 64K
regions:
  - name: ctl
    offset: 0
    size: 0x400
    writer: 1
    variables:
      - { name: mode, type: u32, min: 0, max: 3 }
      - { name: temp, type: f64, unit: degC, min: -10, max: 80 }
      - { name: count, type: u64 }
      - { name: wave, type: f64, count: 64, unit: V }
      - { name: gain, type: f64, digits: 7 }
  - name: plant
    offset: 0x400
    size: 0x100
    writer: 6
    variables:
      - { name: flow, type: f64, unit: l/s }
"""


def test_page_at_a_glance(browser, rfm, net, tmp_path):
    """The header says where the data comes from, the alarm strip what is
    wrong; floats have 4 significant digits or the layout's digits:, a 64-element array is one
    line until opened, a click on a value shows its last minute, and the
    histogram has a count axis and its P50/P99/P99.9."""
    import socket
    from serve_helpers import HIST, Server
    layout = tmp_path / "glance.yaml"
    layout.write_text(GLANCE_LAYOUT)
    hist = tmp_path / "hist.csv"
    hist.write_text(HIST)
    s = Server(net.node(1), "--layout", str(layout), "--hist", str(hist), "--rate", "5")
    try:
        wave = ", ".join(str(round(i * 0.1, 1)) for i in range(64))
        ok(rfm("-u", net.node(2), "set", "--force", "--layout", str(layout), "ctl.wave", wave))
        ok(rfm("-u", net.node(2), "set", "--force", "--layout", str(layout), "ctl.temp",
               "69.21959654547298"))
        ok(rfm("-u", net.node(2), "set", "--force", "--layout", str(layout), "ctl.count",
               "1234567"))
        ok(rfm("-u", net.node(2), "set", "--force", "--layout", str(layout), "ctl.gain",
               "3.14159265358979"))
        browser.get(s.url + "/")
        wait = WebDriverWait(browser, WAIT_S)
        wait.until(lambda d: cell_text(d, "#status") == "live")

        # The header: network, layout, host, the time of the last snapshot.
        assert cell_text(browser, "#info-network").startswith(f"shm:{net.name}")
        assert cell_text(browser, "#info-layout") == "glance"
        assert cell_text(browser, "#info-host") == socket.gethostname()
        assert re.fullmatch(r"\d\d:\d\d:\d\d", cell_text(browser, "#info-updated"))

        # Values: 4 significant digits for floats, integers whole.
        temp = 'tr[data-name="ctl.temp"] td.value'
        wait.until(lambda d: cell_text(d, temp) == "69.22")
        assert cell_text(browser, 'tr[data-name="ctl.count"] td.value') == "1234567"
        # The layout's digits: 7 for ctl.gain.
        assert cell_text(browser, 'tr[data-name="ctl.gain"] td.value') == "3.141593"

        # The alarm strip: the value of a writer never seen is stale; nothing else.
        alarms = "return [...document.querySelectorAll('#alarms .alarm')].map(a => a.dataset.alarm + ': ' + a.textContent)"
        assert browser.execute_script(alarms) == ["stale: 1 stale: plant.flow"]
        word = struct.unpack("<Q", struct.pack("<d", 95.0))[0]
        ok(rfm("-u", net.node(2), "poke64", "8", hex(word)))
        ok(rfm("-u", net.node(2), "poke32", "0", "9"))
        wait.until(lambda d: d.execute_script(alarms) == [
            "out-of-range: 2 out of range: ctl.mode, ctl.temp", "stale: 1 stale: plant.flow"])
        # A node whose beat stops is down: the strip says which.
        from test_serve_stale import beating_node
        beater = beating_node(net, 5)
        wait.until(lambda d: cell_text(d, 'tr[data-node="5"] td:nth-child(2)') == "up")
        os.kill(beater.pid, signal.SIGKILL)
        beater.wait()
        wait.until(lambda d: d.execute_script(alarms)[0] == "nodes-down: 1 node down: 5 (crashed)")

        # The array: one line (count, range, sparkline) until opened.
        arr = 'tr[data-name="ctl.wave"] td.value'
        wait.until(lambda d: (cell_text(d, arr) or "").startswith("\u25b8 64 values, 0 .. 6.3"))
        assert count(browser, arr + " svg.spark polyline") == 1
        assert count(browser, arr + " .array-values") == 0
        click(browser, arr)
        wait.until(lambda d: count(d, arr + " .array-values") == 1)
        values = cell_text(browser, arr + " .array-values").split(", ")
        assert len(values) == 64 and values[:3] == ["0", "0.1", "0.2"] and values[-1] == "6.3"

        # The trend of a scalar: its last minute, on a click.
        assert count(browser, 'tr.trend[data-trend="ctl.temp"]') == 0
        click(browser, temp)
        wait.until(lambda d: count(d, 'tr.trend[data-trend="ctl.temp"] svg.trend polyline') == 1)
        ok(rfm("-u", net.node(2), "set", "--force", "--layout", str(layout), "ctl.temp", "20"))
        caption = 'tr.trend[data-trend="ctl.temp"] .trend-caption'
        # 20 is below every value it had (69.22, 95): the trend's minimum.
        from selenium.common.exceptions import TimeoutException
        try:
            wait.until(lambda d: re.fullmatch(
                r"last \d+ s: \d+ samples, min 20, max (95|69\.22) \(degC\)",
                cell_text(d, caption) or ""))
        except TimeoutException:
            pytest.fail(f"trend caption: {cell_text(browser, caption)!r}")

        # The histogram: bars of 5, 40 and 10, a count axis 0/20/40, P50/P99/P99.9.
        assert count(browser, "#hist svg rect") == 3
        ticks = browser.execute_script(
            "return [...document.querySelectorAll('#hist text.y-tick')].map(t => t.textContent)")
        assert ticks == ["0", "20", "40"]
        pcts = browser.execute_script(
            "return [...document.querySelectorAll('#hist line.pct')].map(l => l.dataset.pct)")
        assert pcts == ["P50", "P99", "P99.9"]
        assert cell_text(browser, "#percentiles") == \
            "P50 <= 4.0 us, P99 <= 8.0 us, P99.9 <= 8.0 us (55 round trips)"
        assert console_errors(browser) == []
        shot = os.environ.get("RFM_SCREENSHOT")
        if shot:
            browser.set_window_size(1400, 1100)
            browser.execute_script("window.scrollTo(0, 0)")
            assert browser.save_screenshot(shot)
    finally:
        rc, err = s.stop()
    assert rc == 0, err


# ---- the page in a control room: every column at every width ----

WIDTHS = (1920, 1440, 1280, 390)

# Where each table and card stands, read in the page at once.
FIT = """
const out = {page: document.documentElement.scrollWidth, view: window.innerWidth,
             cards: [], scrolls: [], overlaps: []};
const cards = [...document.querySelectorAll('main > section')];
for (const c of cards)
    out.cards.push({h2: c.querySelector('h2').textContent, sw: c.scrollWidth, cw: c.clientWidth});
for (const s of document.querySelectorAll('.scroll'))
    out.scrolls.push({table: s.querySelector('table').id, sw: s.scrollWidth, cw: s.clientWidth,
                      tw: s.querySelector('table').scrollWidth});
for (let i = 0; i < cards.length; i++)
    for (let j = i + 1; j < cards.length; j++) {
        const a = cards[i].getBoundingClientRect(), b = cards[j].getBoundingClientRect();
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
            a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
            out.overlaps.push([cards[i].querySelector('h2').textContent,
                               cards[j].querySelector('h2').textContent]);
    }
return out;
"""


def set_viewport(driver, width, height=1000):
    """The page's own width exactly (a window's would lose its scrollbar)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def spawn(*args):
    import subprocess
    from conftest import RFM, _environment
    return subprocess.Popen([RFM, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_environment())


def test_page_fits_every_width(browser, rfm, net, tmp_path):
    """The example layout's rig, as an operator sees it: a simulator and an
    acquisition board beating, a ring with a consumer, a node that crashed,
    one that left, values stale and out of range. At 1920, 1440 and 1280 px
    every table shows every column inside its card (its scrollWidth is its
    card's clientWidth or less); at 390 px the page is no wider than the
    screen and a table too wide scrolls inside its own card. No card is
    painted over another. The nodes carry their roles (the regions they
    write); the alarm line says what is down, stale and out of range; a
    value's trend has its axes and unit. docs/monitor.png is this page at
    1440 px ($RFM_SCREENSHOT, make monitor-screenshot)."""
    import subprocess
    from conftest import RFM
    from serve_helpers import HIST, Server
    layout = os.path.join(os.environ.get("RFM_SRCDIR", ""), "examples", "layouts",
                          "test-rig.yaml")
    uri = f"{net.bare}?size=16M"
    node = lambda n: f"{uri}&node={n}"  # noqa: E731
    hist = tmp_path / "hist.csv"
    hist.write_text(HIST)
    env = {"RFM_LAYOUT": layout}
    procs = []
    s = None
    try:
        # The master (0), the simulator (1) and the acquisition board (2)
        # run health monitors; 3 and 6 will leave and crash.
        for n in (0, 1, 2, 3, 6):
            procs.append(spawn("-u", node(n), "listen", "--event", "node_up"))
        ok(rfm("-u", node(0) + "&shared=1", "set", "control.mode", "2", env=env))
        ok(rfm("-u", node(0) + "&shared=1", "set", "control.throttle", "41.5", env=env))
        ok(rfm("-u", node(1) + "&shared=1", "set", "sim.state.speed", "6120", env=env))
        ok(rfm("-u", node(1) + "&shared=1", "set", "sim.state.temperatures",
               "81.5, 82, 80.5, 83, 79.5, 81", env=env))
        ok(rfm("-u", node(2) + "&shared=1", "set", "daq.pressure", "3.5", env=env))
        # The simulator's event log: its ring, and node 4 reading it.
        ok(rfm("-u", node(1) + "&shared=1", "ring", "create", "log", env=env))
        ok(rfm("-u", node(1) + "&shared=1", "ring", "pub", "log", "start", "crank", "run",
               env=env))
        reader = subprocess.Popen([RFM, "-u", node(4), "ring", "tail", "log", "--layout", layout],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=_env(), text=True)
        procs.append(reader)
        assert reader.stdout.readline() == "0: start\n"
        # Out of range, written raw (the library would refuse it).
        ok(rfm("-u", node(0) + "&shared=1", "poke32", "0", "7"))
        s = Server(uri, "--layout", layout, "--hist", str(hist), "--rate", "5")
        browser.get(s.url + "/")
        wait = WebDriverWait(browser, WAIT_S)
        wait.until(lambda d: cell_text(d, "#status") == "live")
        wait.until(lambda d: cell_text(d, 'tr[data-node="1"] td.state') == "up")
        # Node 3 leaves (SIGTERM: rfm closes), node 6 crashes (SIGKILL).
        procs[3].terminate()
        procs[3].wait()
        procs[4].kill()
        procs[4].wait()
        wait.until(lambda d: cell_text(d, 'tr[data-node="3"] td.state') == "left")
        wait.until(lambda d: cell_text(d, 'tr[data-node="6"] td.state') == "crashed")

        # Roles from the layout: the regions each node writes.
        assert cell_text(browser, 'tr[data-node="1"] td.node-id') == "1sim, log"
        assert cell_text(browser, 'tr[data-node="2"] .role') == "daq"
        assert cell_text(browser, 'tr[data-node="4"] .role') is None
        # One alarm line: the crashed node (not the one that left), out of range.
        alarms = browser.execute_script(
            "return [...document.querySelectorAll('#alarms .alarm')].map(a => a.dataset.alarm)")
        assert alarms[:2] == ["nodes-down", "out-of-range"], alarms
        assert cell_text(browser, '#alarms .alarm[data-alarm="nodes-down"]') == \
            "1 node down: 6 (crashed)"
        assert has_class(browser, "#alarms", "bad")
        # The ring of the layout's log region and its consumer.
        wait.until(lambda d: count(d, '#rings tr[data-region="log"][data-node="4"]') == 1)
        # A trend: axes in time and in the value's unit.
        click(browser, 'tr[data-name="sim.state.speed"] td.value')
        wait.until(lambda d: count(d, 'tr.trend[data-trend="sim.state.speed"] svg.trend') == 1)
        ticks = browser.execute_script(
            "return [...document.querySelectorAll('svg.trend text.y-tick')].map(t => t.textContent)")
        assert ticks and all(t.endswith(" rpm") for t in ticks), ticks
        xs = browser.execute_script(
            "return [...document.querySelectorAll('svg.trend text.x-tick')].map(t => t.textContent)")
        assert xs == ["-60 s", "-45 s", "-30 s", "-15 s", "now"]

        for width in WIDTHS:
            set_viewport(browser, width)   # the page reflows before the next script runs
            got = browser.execute_script(FIT)
            assert got["page"] <= got["view"], (width, got["page"], got["view"])
            assert got["overlaps"] == [], (width, got["overlaps"])
            for c in got["cards"]:
                assert c["sw"] <= c["cw"], (width, "card overflows", c)
            for t in got["scrolls"]:
                if width >= 1280:
                    # Every column inside its card: nothing to scroll to.
                    assert t["sw"] <= t["cw"] and t["tw"] <= t["cw"], (width, t)
            if width == 390:
                stats = [t for t in got["scrolls"] if t["table"] == "stats"][0]
                assert stats["tw"] <= stats["cw"], ("event counters off screen", stats)
            if width == 1440:
                shot = os.environ.get("RFM_SCREENSHOT")
                if shot:
                    set_viewport(browser, 1440, 1700)
                    # A snapshot drawn at this size, then the picture.
                    drawn = cell_text(browser, "#info-updated")
                    wait.until(lambda d: cell_text(d, "#info-updated") != drawn)
                    browser.execute_script("window.scrollTo(0, 0)")
                    assert browser.save_screenshot(shot)
        assert console_errors(browser) == []
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait()
            if p.stdout:
                p.stdout.close()
        if s:
            rc, err = s.stop()
            assert rc == 0, err


def _env():
    from conftest import _environment
    return _environment()
