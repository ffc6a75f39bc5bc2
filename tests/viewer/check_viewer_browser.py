#!/usr/bin/env python3
"""Renders gcbridge's viewer pages in a real browser and checks what a user would see: Debian's
Chromium (headless, software WebGL through SwiftShader, driven over the DevTools protocol on a pipe)
or Firefox ESR (in an Xvfb display, WebGL through Mesa's llvmpipe, driven over its Marionette
protocol: headless Firefox has no WebGL). One browser per case; every page it loads must report
"ready" before its screenshot is taken.

usage: check_viewer_browser.py CASE [--browser chromium|firefox] --pages-writer EXE
                               --gcbridge EXE --models DIR [--ragdoll EXE]

Cases:
  draws      the iiwa page draws: its script reports "ready" (no error), and the robot covers
             at least 2% of the canvas (pixels that differ from the same page with its tracks
             hidden, #hide=1)
  time       the pendulum recording at #t=0 and #t=1 differs (the pendulum swung 1 rad), and so
             does `gcbridge compare`'s viewer (pendulum5, passive: every engine moves)
  bullet     `gcbridge view` of a Bullet world (the iiwa exported to .bullet) draws its bodies
             from their collision shapes, as "draws" checks
  ragdoll    the ragdoll demo's page (two humanoids, each its own model) draws, and differs at
             #t=0 and #t=1 (the arms wave)
  offline    every page is one file under 5 MB that refers to nothing on the web (no http(s)
             address but XML namespace names), including `gcbridge view` of a URDF and of a
             .bullet-free model
Exits 77 (CTest's skip) with a message when the browser (or Xvfb, for Firefox) is not installed.
"""

import argparse
import base64
import json
import os
import re
import pathlib
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

CHROMIUM = "/usr/bin/chromium"
FIREFOX = "/usr/bin/firefox-esr"
XVFB = "/usr/bin/Xvfb"
SKIP = 77
# Chromium's pages are laid out at WIDTH x HEIGHT and captured at SCALE of that (a quarter of the
# pixels for the pure-Python PNG decoder; docs/viewer.md compares the shares at both scales).
WIDTH, HEIGHT, SCALE = 800, 600, 0.5
# How long a browser may take to answer one command, and to draw two animation frames [s].
REPLY_TIMEOUT, FRAMES_TIMEOUT = 60, 5
NO_STATUS = "(no status: the script did not finish)"
# Waits for two animation frames, so that the canvas holds what the status says; false when they
# did not come within FRAMES_TIMEOUT.
TWO_FRAMES = ("new Promise(done => { requestAnimationFrame(() => requestAnimationFrame(() => "
              f"done(true))); setTimeout(() => done(false), {1000 * FRAMES_TIMEOUT}); }})")


class CheckFailed(Exception):
    pass


class Browser:
    """What both drivers share: a screenshot is a load, then the driver's own capture. Each driver
    gives load(url, play) (the page's status after it) and capture() (a base64 PNG)."""

    def load(self, url, play=0.0):
        raise NotImplementedError

    def capture(self):
        raise NotImplementedError

    def screenshot(self, url, path):
        """Loads url, saves what it shows at path and returns its status."""
        got = self.load(url)
        with open(path, "wb") as out:
            out.write(base64.b64decode(self.capture()))
        return got


class Chromium(Browser):
    """Headless Chromium with software WebGL and no network chatter, one browser per case, driven
    over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON commands read from its fd 3,
    replies and events written to its fd 4, each message ended by a NUL byte)."""

    def __init__(self, tmp):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        flags = ["--headless", "--no-sandbox", "--use-angle=swiftshader",
                 "--enable-unsafe-swiftshader", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic", "--user-data-dir=" + os.path.join(tmp, "profile"),
                 "--remote-debugging-pipe", "about:blank"]
        # The shell puts the pipe's ends on the descriptors the protocol expects.
        shell = f'exec "$0" "$@" 3<&{to_browser_read} 4>&{from_browser_write}'
        self.log = os.path.join(tmp, "chromium.log")
        try:
            with open(self.log, "w") as log:
                self.process = subprocess.Popen(["sh", "-c", shell, CHROMIUM, *flags],
                                                pass_fds=(to_browser_read, from_browser_write),
                                                stdout=subprocess.DEVNULL, stderr=log,
                                                start_new_session=True)
        except OSError:
            os.close(self.to_browser)
            os.close(self.from_browser)
            raise
        finally:
            os.close(to_browser_read)
            os.close(from_browser_write)
        self.id, self.buffer = 0, b""
        try:
            target = self.command("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.command("Target.attachToTarget",
                                        {"targetId": target, "flatten": True})["sessionId"]
            self.command("Emulation.setDeviceMetricsOverride",
                         {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
                          "mobile": False}, self.session)
        except Exception:
            self.close()
            raise

    def receive(self, method, deadline):
        """The next message, waiting until deadline (time.monotonic()) at most."""
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.from_browser], [], [], remaining)[0]:
                raise CheckFailed(f"chromium did not answer {method} within {REPLY_TIMEOUT} s\n"
                                  + self.log_tail())
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise CheckFailed(f"chromium closed its DevTools pipe during {method}\n"
                                  + self.log_tail())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def command(self, method, params, session=None):
        """Sends one command and returns its result (events and other replies are dropped)."""
        self.id += 1
        message = {"id": self.id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        try:
            os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        except OSError as e:
            raise CheckFailed(f"chromium {method}: {e}\n" + self.log_tail()) from e
        deadline = time.monotonic() + REPLY_TIMEOUT
        while True:
            reply = self.receive(method, deadline)
            if reply.get("id") != self.id:
                continue
            if "error" in reply:
                raise CheckFailed(f"chromium {method}: {reply['error']}")
            return reply["result"]

    def evaluate(self, expression, await_promise=False):
        result = self.command("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                   "awaitPromise": await_promise}, self.session)
        return result["result"].get("value")

    def wait_for(self, expression):
        """The value of expression once it is not empty, polled for up to 60 s, or ''."""
        for _ in range(600):
            got = self.evaluate(expression)
            if got:
                return got
            time.sleep(0.1)
        return ""

    def navigate(self, url):
        error = self.command("Page.navigate", {"url": url}, self.session).get("errorText")
        if error:
            raise CheckFailed(f"chromium could not load {url}: {error}")

    def load(self, url, play=0.0):
        """Loads url afresh (a new document, even when only the fragment differs), waits up to 60 s
        for its status and two animation frames more, lets it play for `play` seconds, and
        returns its status then."""
        self.navigate("about:blank")
        self.wait_for("location.href === 'about:blank'")
        self.navigate(url)
        loaded = "location.href === new URL(%s).href && document.body" % json.dumps(url)
        if not self.wait_for(f"{loaded} ? document.body.dataset.status || '' : ''"):
            return NO_STATUS
        if not self.evaluate(TWO_FRAMES, await_promise=True):
            raise CheckFailed(f"{url} drew no animation frame within {FRAMES_TIMEOUT} s")
        time.sleep(play)
        return self.evaluate("document.body.dataset.status")

    def capture(self):
        """The page as shown, a base64 PNG (the viewport at SCALE)."""
        clip = {"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "scale": SCALE}
        return self.command("Page.captureScreenshot", {"format": "png", "clip": clip},
                            self.session)["data"]

    def log_tail(self):
        """The end of what Chromium wrote to stderr."""
        with open(self.log, errors="replace") as log:
            return log.read()[-2000:]

    def close(self):
        """Asks Chromium to quit (it then stops its helper processes and leaves its profile), and
        kills its process group if it has not within 10 s."""
        if self.process.poll() is None:
            try:
                os.write(self.to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode()
                         + b"\0")
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        # Its helper processes too, should any outlive it.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        for fd in (self.to_browser, self.from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self.to_browser = self.from_browser = -1


class Firefox(Browser):
    """Firefox ESR in its own Xvfb display, driven over Marionette (WebDriver commands as JSON
    over TCP, the port Firefox picks written to its profile)."""

    def __init__(self, tmp):
        self.processes = []
        read_end, write_end = os.pipe()
        xvfb = subprocess.Popen([XVFB, "-displayfd", str(write_end), "-screen", "0", "1024x768x24",
                                 "-nolisten", "tcp"], pass_fds=(write_end,),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes.append(xvfb)
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            display = pipe.readline().strip()
        if not display:
            self.close()
            raise CheckFailed("Xvfb did not start")
        profile = os.path.join(tmp, "firefox-profile")
        os.makedirs(profile, exist_ok=True)
        with open(os.path.join(profile, "user.js"), "w") as prefs:
            prefs.write('user_pref("marionette.port", 0);\n'
                        'user_pref("browser.shell.checkDefaultBrowser", false);\n'
                        'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n'
                        'user_pref("app.update.disabledForTesting", true);\n')
        env = dict(os.environ, DISPLAY=":" + display, MOZ_CRASHREPORTER_DISABLE="1")
        self.processes.append(subprocess.Popen(
            [FIREFOX, "--marionette", "--no-remote", "--profile", profile, "--width", "800",
             "--height", "600"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        try:
            self.socket = self.connect(os.path.join(profile, "MarionetteActivePort"))
            self.stream = self.socket.makefile("rb")
            self.id = 0
            self.receive()
            self.command("WebDriver:NewSession", {})
        except Exception:
            self.close()
            raise

    def connect(self, port_file):
        for _ in range(300):
            try:
                port = int(open(port_file).read().strip())
                return socket.create_connection(("127.0.0.1", port), timeout=60)
            except (OSError, ValueError):
                time.sleep(0.1)
        raise CheckFailed("Firefox did not open its Marionette port")

    def receive(self):
        length = b""
        while not length.endswith(b":"):
            byte = self.stream.read(1)
            if not byte:
                raise CheckFailed("Firefox closed its Marionette connection")
            length += byte
        return json.loads(self.stream.read(int(length[:-1])))

    def command(self, name, parameters):
        self.id += 1
        body = json.dumps([0, self.id, name, parameters]).encode()
        try:
            self.socket.sendall(str(len(body)).encode() + b":" + body)
            reply = self.receive()
        except OSError as e:
            raise CheckFailed(f"Firefox {name}: {e}") from e
        if reply[2]:
            raise CheckFailed(f"Firefox {name}: {reply[2]}")
        return reply[3]

    def load(self, url, play=0.0):
        """Loads url afresh (a new document, even when only the fragment differs), waits up to 20 s
        for its status and two animation frames more, lets it play for `play` seconds, and
        returns its status then."""
        self.command("WebDriver:Navigate", {"url": "about:blank"})
        self.command("WebDriver:Navigate", {"url": url})
        status = {"script": "return document.body.dataset.status || ''", "args": []}
        for _ in range(200):
            if self.command("WebDriver:ExecuteScript", status)["value"]:
                break
            time.sleep(0.1)
        else:
            return NO_STATUS
        drawn = self.command("WebDriver:ExecuteAsyncScript", {
            "script": f"const done = arguments[0]; ({TWO_FRAMES}).then(done);", "args": []})
        if not drawn["value"]:
            raise CheckFailed(f"{url} drew no animation frame within {FRAMES_TIMEOUT} s")
        time.sleep(play)
        return self.command("WebDriver:ExecuteScript", status)["value"]

    def capture(self):
        """The page as shown, a base64 PNG (the viewport)."""
        return self.command("WebDriver:TakeScreenshot", {"full": False})["value"]

    def close(self):
        for process in reversed(self.processes):
            process.kill()
            process.wait()
        self.processes = []


BROWSERS = {"chromium": (Chromium, [CHROMIUM]), "firefox": (Firefox, [FIREFOX, XVFB])}


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, without libraries."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckFailed(f"{path} is not a PNG")
    at, idat, width = 8, b"", 0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise CheckFailed(f"{path}: unsupported PNG (depth {depth}, colour {colour})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                nearest = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + nearest) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def differing_share(a, b):
    """The share of pixels that differ by more than 24 in some channel."""
    wa, ha, ra = png_pixels(a)
    wb, hb, rb = png_pixels(b)
    if (wa, ha) != (wb, hb):
        raise CheckFailed(f"{a} and {b} differ in size")
    differ = sum(1 for y in range(ha) for x in range(wa)
                 if max(abs(p - q) for p, q in zip(ra[y][x], rb[y][x])) > 24)
    return differ / (wa * ha)


def screenshot(ctx, tmp, page, fragment, name):
    """The path of a screenshot of page#fragment, once the page reported "ready"."""
    path = os.path.join(tmp, name)
    got = ctx.browser.screenshot(pathlib.Path(page).as_uri() + fragment, path)
    if got != "ready":
        raise CheckFailed(f"{page}{fragment}: status '{got}', expected 'ready'")
    return path


def case_draws(ctx, tmp, pages):
    check_drawn(ctx, tmp, pages["iiwa"], "iiwa")


def check_drawn(ctx, tmp, page, name):
    """The page plays for a second and still reports "ready", and its tracks cover at least 2% of
    the canvas; returns the path of its screenshot at #t=0."""
    got = ctx.browser.load(pathlib.Path(page).as_uri(), play=1.0)
    if got != "ready":
        raise CheckFailed(f"{page}, playing: status '{got}', expected 'ready'")
    shown = screenshot(ctx, tmp, page, "#t=0", name + "_t0.png")
    share = differing_share(shown, screenshot(ctx, tmp, page, "#t=0&hide=1", name + "_hidden.png"))
    if share < 0.02:
        raise CheckFailed(f"{name} covers {share:.4f} of the canvas, expected at least 0.02")
    print(f"{name} drawn over {100 * share:.1f}% of the canvas")
    return shown


def case_bullet(ctx, tmp, pages):
    world = os.path.join(tmp, "iiwa.bullet")
    page = os.path.join(tmp, "iiwa_bullet.html")
    for args in (["export", os.path.join(ctx.models, "kuka_iiwa", "model.urdf"), "--out", world],
                 ["view", world, "--out", page]):
        proc = subprocess.run([ctx.gcbridge, *args], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise CheckFailed(f"gcbridge {' '.join(args)} failed: {proc.stderr}")
    check_drawn(ctx, tmp, page, "iiwa_bullet")


def case_ragdoll(ctx, tmp, pages):
    if not ctx.ragdoll:
        raise CheckFailed("the ragdoll case needs --ragdoll EXE")
    page = os.path.join(tmp, "ragdoll.html")
    proc = subprocess.run([ctx.ragdoll, "--steps", "300", "--html", page], capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        raise CheckFailed(f"gcbridge-ragdoll --html failed: {proc.stderr}")
    check_moves(ctx, tmp, page, "ragdoll", check_drawn(ctx, tmp, page, "ragdoll"))


def check_moves(ctx, tmp, page, name, at_t0=None):
    """The page reports "ready" and differs at #t=0 (at_t0, if its screenshot was taken) and #t=1."""
    at_t0 = at_t0 or screenshot(ctx, tmp, page, "#t=0", name + "_t0.png")
    share = differing_share(at_t0, screenshot(ctx, tmp, page, "#t=1", name + "_t1.png"))
    if share < 0.002:
        raise CheckFailed(f"{name}: #t=0 and #t=1 differ in {share:.5f} of the pixels")
    print(f"{name}: #t=0 and #t=1 differ in {100 * share:.2f}% of the pixels")


def case_time(ctx, tmp, pages):
    check_moves(ctx, tmp, pages["pendulum"], "pendulum")
    out = os.path.join(tmp, "compare")
    proc = subprocess.run([ctx.gcbridge, "compare",
                           os.path.join(ctx.models, "pendulum5", "pendulum5.urdf"), "--duration",
                           "1.2", "--engines", "rigid_body,rk4", "--out", out, "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise CheckFailed(f"gcbridge compare failed: {proc.stderr}")
    check_moves(ctx, tmp, os.path.join(out, "viewer.html"), "compare")


def case_offline(ctx, tmp, pages):
    viewed = os.path.join(tmp, "view_iiwa.html")
    iiwa = os.path.join(ctx.models, "kuka_iiwa", "model.urdf")
    proc = subprocess.run([ctx.gcbridge, "view", iiwa, "--out", viewed], capture_output=True,
                          text=True, timeout=120)
    if proc.returncode != 0:
        raise CheckFailed(f"gcbridge view failed: {proc.stderr}")
    for page in [viewed, *pages.values()]:
        size = os.path.getsize(page)
        if size > 5_000_000:
            raise CheckFailed(f"{page} is {size} bytes, over 5 MB")
        text = open(page, encoding="utf-8").read()
        addresses = [a for a in re.findall(r"https?://[^\s\"'<>)]*", text)
                     if not a.startswith("http://www.w3.org/")]
        if addresses:
            raise CheckFailed(f"{page} refers to the web: {sorted(set(addresses))[:5]}")
        if re.search(r"<(script|link|img)[^>]*\s(src|href)=", text):
            raise CheckFailed(f"{page} loads a file")
    largest = max(os.path.getsize(p) for p in [viewed, *pages.values()])
    print(f"pages offline, largest {largest} bytes")


CASES = {"draws": case_draws, "time": case_time, "bullet": case_bullet, "ragdoll": case_ragdoll,
         "offline": case_offline}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--browser", choices=sorted(BROWSERS), default="chromium")
    parser.add_argument("--pages-writer", required=True)
    parser.add_argument("--gcbridge", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--ragdoll", help="the gcbridge-ragdoll demo (the ragdoll case)")
    ctx = parser.parse_args()
    ctx.browser_name = ctx.browser
    opener, programs = BROWSERS[ctx.browser]
    missing = [p for p in programs if not shutil.which(p)]
    if ctx.case != "offline" and missing:
        print(f"skipped: {', '.join(missing)} not installed (make test installs them)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([ctx.pages_writer, tmp, ctx.models], check=True, timeout=120)
        pages = {name: os.path.join(tmp, name + ".html") for name in ("iiwa", "pendulum")}
        ctx.browser = None
        try:
            ctx.browser = opener(tmp) if ctx.case != "offline" else None
            CASES[ctx.case](ctx, tmp, pages)
        except CheckFailed as e:
            print(f"FAILED {ctx.case} in {ctx.browser_name}: {e}", file=sys.stderr)
            return 1
        finally:
            if ctx.browser is not None:
                ctx.browser.close()
    print(f"passed {ctx.case} in {ctx.browser_name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
