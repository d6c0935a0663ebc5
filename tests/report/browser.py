"""Headless Chromium through its DevTools protocol over a pipe (no websocket library needed):
open a page at a given width and colour scheme, collect console messages, exceptions, log
entries and every network request, measure the page and take a full-page screenshot.

Used by test_browser.py; ``python -m tests.report.browser REPORT.json OUT_DIR`` renders a report
and saves the screenshots (docs/screenshots is made this way).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"

_FLAGS = [
    "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
    "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--disable-features=Translate,"
    "OptimizationHints,MediaRouter,InterestFeedContentSuggestions", "--mute-audio",
    "--hide-scrollbars", "--force-color-profile=srgb", "--font-render-hinting=none",
]


@dataclass
class PageResult:
    url: str
    width: int
    scroll_width: int
    height: int
    console: list[dict[str, Any]] = field(default_factory=list)  # Runtime.consoleAPICalled
    exceptions: list[dict[str, Any]] = field(default_factory=list)  # Runtime.exceptionThrown
    log: list[dict[str, Any]] = field(default_factory=list)  # Log.entryAdded (CSP, loads)
    requests: list[str] = field(default_factory=list)  # Network.requestWillBeSent URLs
    failed: list[dict[str, Any]] = field(default_factory=list)  # Network.loadingFailed
    text: str = ""  # document.body.innerText
    png: bytes = b""

    @property
    def errors(self) -> list[str]:
        out = [f"console.{c.get('type')}: {c.get('args')}" for c in self.console
               if c.get("type") in ("error", "warning", "assert")]
        out += [f"exception: {x.get('exceptionDetails', {}).get('text')}"
                for x in self.exceptions]
        out += [f"log {x['entry'].get('level')}: {x['entry'].get('text')}" for x in self.log
                if x["entry"].get("level") in ("error", "warning")]
        out += [f"failed load: {f.get('errorText')} {f.get('blockedReason') or ''}"
                for f in self.failed]
        return out


class Chromium:
    """One headless browser; :meth:`open` loads pages in fresh tabs."""

    def __init__(self, binary: str = CHROMIUM) -> None:
        self._profile = tempfile.mkdtemp(prefix="rocmate-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        self._stderr = open(Path(self._profile) / "stderr.log", "wb")  # noqa: SIM115
        devnull = os.open(os.devnull, os.O_RDWR)
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                   (os.POSIX_SPAWN_DUP2, self._stderr.fileno(), 2),
                   (os.POSIX_SPAWN_DUP2, to_chrome_r, 3), (os.POSIX_SPAWN_DUP2, from_chrome_w, 4)]
        env = {"HOME": self._profile, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        argv = [binary, *_FLAGS, f"--user-data-dir={self._profile}", "about:blank"]
        self.pid = os.posix_spawn(binary, argv, env, file_actions=actions)
        for fd in (to_chrome_r, from_chrome_w, devnull):
            os.close(fd)
        self._next_id = 0
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_chrome, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._events.put({"method": "__closed__"})
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._lock:
                        box = self._replies.get(msg["id"])
                    if box is not None:
                        box.put(msg)
                else:
                    self._events.put(msg)

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            msg_id = self._next_id
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._replies[msg_id] = box
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        reply = box.get(timeout=timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return dict(reply.get("result", {}))

    def open(self, url: str, *, width: int, height: int = 900, dark: bool = False,
             mobile: bool = False, scale: float = 1.0, timeout: float = 30.0) -> PageResult:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale,
                   "mobile": mobile}, session=session)
        scheme = "dark" if dark else "light"
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
                  session=session)
        self._drain()
        self.send("Page.navigate", {"url": url}, session=session)
        result = PageResult(url=url, width=width, scroll_width=0, height=0)
        self._collect_until_load(session, result, timeout)
        metrics = self._eval(session, "JSON.stringify({w: document.documentElement.scrollWidth,"
                                      " h: document.documentElement.scrollHeight,"
                                      " t: document.body.innerText})")
        data = json.loads(metrics)
        result.scroll_width, result.height, result.text = int(data["w"]), int(data["h"]), data["t"]
        shot = self.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True,
                          "clip": {"x": 0, "y": 0, "width": width, "height": result.height,
                                   "scale": 1}}, session=session, timeout=timeout)
        result.png = base64.b64decode(shot["data"])
        self._collect_pending(session, result)
        self.send("Target.closeTarget", {"targetId": target})
        return result

    def _eval(self, session: str, expression: str) -> str:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                          session=session)
        return str(reply["result"]["value"])

    def _drain(self) -> None:
        while not self._events.empty():
            self._events.get_nowait()

    def _record(self, ev: dict[str, Any], session: str, result: PageResult) -> None:
        if ev.get("sessionId") != session:
            return
        method, params = ev.get("method"), ev.get("params", {})
        if method == "Runtime.consoleAPICalled":
            result.console.append(params)
        elif method == "Runtime.exceptionThrown":
            result.exceptions.append(params)
        elif method == "Log.entryAdded":
            result.log.append(params)
        elif method == "Network.requestWillBeSent":
            result.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed":
            result.failed.append(params)

    def _collect_until_load(self, session: str, result: PageResult, timeout: float) -> None:
        while True:
            ev = self._events.get(timeout=timeout)
            if ev.get("method") == "__closed__":
                raise RuntimeError("chromium closed the pipe")
            self._record(ev, session, result)
            if ev.get("method") == "Page.loadEventFired" and ev.get("sessionId") == session:
                return

    def _collect_pending(self, session: str, result: PageResult) -> None:
        while not self._events.empty():
            self._record(self._events.get_nowait(), session, result)

    @property
    def stderr(self) -> str:
        self._stderr.flush()
        return (Path(self._profile) / "stderr.log").read_text(errors="replace")

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5.0)
        except Exception:
            os.kill(self.pid, 9)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def screenshots(report_json: Path, out_dir: Path, name: str = "report-h200") -> list[Path]:
    """Render a report (with its cards-like-mine section) and save desktop, phone and dark
    screenshots into ``out_dir``."""
    from core.report.writers import load_report_file, render

    html = render(load_report_file(report_json), "html", references=True)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        out_dir.mkdir(parents=True, exist_ok=True)
        shots = [(f"{name}.png", 1200, False, False), (f"{name}-phone.png", 380, False, True),
                 (f"{name}-dark.png", 1200, True, False)]
        written = []
        with Chromium() as browser:
            for file, width, dark, mobile in shots:
                res = browser.open(page.as_uri(), width=width, dark=dark, mobile=mobile)
                (out_dir / file).write_bytes(res.png)
                written.append(out_dir / file)
        return written


if __name__ == "__main__":
    import sys

    for p in screenshots(Path(sys.argv[1]), Path(sys.argv[2])):
        print(p)
