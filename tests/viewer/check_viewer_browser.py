#!/usr/bin/env python3
"""Renders gcbridge's viewer pages in a real browser (Debian's Chromium, headless, software
WebGL through SwiftShader) and checks what a user would see.

usage: check_viewer_browser.py CASE --pages-writer EXE --gcbridge EXE --models DIR

Cases:
  draws      the iiwa page draws: its script reports "ready" (no error), and the robot covers
             at least 2% of the canvas (pixels that differ from the same page with its tracks
             hidden, #hide=1)
  time       the pendulum recording at #t=0 and #t=1 differs (the pendulum swung 1 rad), and so
             does `gcbridge compare`'s viewer (pendulum5, passive: every engine moves)
  bullet     `gcbridge view` of a Bullet world (the iiwa exported to .bullet) draws its bodies
             from their collision shapes, as "draws" checks
  offline    every page is one file under 5 MB that refers to nothing on the web (no http(s)
             address but XML namespace names), including `gcbridge view` of a URDF and of a
             .bullet-free model
Exits 77 (CTest's skip) with a message when Chromium is not installed.
"""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

CHROMIUM = "/usr/bin/chromium"
SKIP = 77


class CheckFailed(Exception):
    pass


def chromium(tmp, *args):
    """Runs headless Chromium with software WebGL and no network chatter; returns stdout."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--use-angle=swiftshader",
               "--enable-unsafe-swiftshader", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run",
               "--disable-quic", "--user-data-dir=" + os.path.join(tmp, "profile"),
               "--virtual-time-budget=8000", "--window-size=800,600", *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise CheckFailed(f"chromium failed ({proc.returncode}): {' '.join(command)}\n{proc.stderr}")
    return proc.stdout


def status(tmp, url):
    """The page's body data-status once its script ran."""
    dom = chromium(tmp, "--dump-dom", url)
    match = re.search(r'<body[^>]*data-status="([^"]*)"', dom)
    return match.group(1) if match else "(no status: the script did not finish)"


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
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
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
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
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


def screenshot(tmp, page, fragment, name):
    path = os.path.join(tmp, name)
    chromium(tmp, "--screenshot=" + path, "file://" + page + fragment)
    if not os.path.isfile(path):
        raise CheckFailed(f"chromium wrote no screenshot of {page}{fragment}")
    return path


def case_draws(ctx, tmp, pages):
    check_drawn(tmp, pages["iiwa"], "iiwa")


def check_drawn(tmp, page, name):
    """The page reports "ready" and its tracks cover at least 2% of the canvas."""
    got = status(tmp, "file://" + page)
    if got != "ready":
        raise CheckFailed(f"{page}: status '{got}', expected 'ready'")
    share = differing_share(screenshot(tmp, page, "#t=0", name + ".png"),
                            screenshot(tmp, page, "#t=0&hide=1", name + "_hidden.png"))
    if share < 0.02:
        raise CheckFailed(f"{name} covers {share:.4f} of the canvas, expected at least 0.02")
    print(f"{name} drawn over {100 * share:.1f}% of the canvas")


def case_bullet(ctx, tmp, pages):
    world = os.path.join(tmp, "iiwa.bullet")
    page = os.path.join(tmp, "iiwa_bullet.html")
    for args in (["export", os.path.join(ctx.models, "kuka_iiwa", "model.urdf"), "--out", world],
                 ["view", world, "--out", page]):
        proc = subprocess.run([ctx.gcbridge, *args], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise CheckFailed(f"gcbridge {' '.join(args)} failed: {proc.stderr}")
    check_drawn(tmp, page, "iiwa_bullet")


def check_moves(tmp, page, name):
    """The page reports "ready" and differs at #t=0 and #t=1."""
    got = status(tmp, "file://" + page + "#t=1")
    if got != "ready":
        raise CheckFailed(f"{page}: status '{got}', expected 'ready'")
    share = differing_share(screenshot(tmp, page, "#t=0", name + "_t0.png"),
                            screenshot(tmp, page, "#t=1", name + "_t1.png"))
    if share < 0.002:
        raise CheckFailed(f"{name}: #t=0 and #t=1 differ in {share:.5f} of the pixels")
    print(f"{name}: #t=0 and #t=1 differ in {100 * share:.2f}% of the pixels")


def case_time(ctx, tmp, pages):
    check_moves(tmp, pages["pendulum"], "pendulum")
    out = os.path.join(tmp, "compare")
    proc = subprocess.run([ctx.gcbridge, "compare",
                           os.path.join(ctx.models, "pendulum5", "pendulum5.urdf"), "--duration",
                           "1.2", "--engines", "rigid_body,rk4", "--out", out, "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise CheckFailed(f"gcbridge compare failed: {proc.stderr}")
    check_moves(tmp, os.path.join(out, "viewer.html"), "compare")


def case_offline(ctx, tmp, pages):
    viewed = os.path.join(tmp, "view_iiwa.html")
    proc = subprocess.run([ctx.gcbridge, "view", os.path.join(ctx.models, "kuka_iiwa", "model.urdf"),
                           "--out", viewed], capture_output=True, text=True, timeout=120)
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
    print(f"pages offline, largest {max(os.path.getsize(p) for p in [viewed, *pages.values()])} bytes")


CASES = {"draws": case_draws, "time": case_time, "bullet": case_bullet, "offline": case_offline}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--pages-writer", required=True)
    parser.add_argument("--gcbridge", required=True)
    parser.add_argument("--models", required=True)
    ctx = parser.parse_args()
    if ctx.case != "offline" and not shutil.which(CHROMIUM):
        print(f"skipped: {CHROMIUM} is not installed (apt-get install chromium; make test does)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([ctx.pages_writer, tmp, ctx.models], check=True, timeout=120)
        pages = {name: os.path.join(tmp, name + ".html") for name in ("iiwa", "pendulum")}
        try:
            CASES[ctx.case](ctx, tmp, pages)
        except CheckFailed as e:
            print(f"FAILED {ctx.case}: {e}", file=sys.stderr)
            return 1
    print(f"passed {ctx.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
