"""The HTML report in a real headless Chromium (Debian's ``chromium``): it renders with no
console error, fits a 380 px phone, and makes no request but for the page itself, even when
a hostile report tries, and even if escaping were to fail (the Content-Security-Policy).

Set ROCMATE_UPDATE_SCREENSHOTS=1 to refresh docs/screenshots/report-h200*.png from this run.
"""

from __future__ import annotations

import http.server
import os
import shutil
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.report.writers import render
from tests.report.browser import CHROMIUM, Chromium, PageResult
from tests.report.support import ALL_REPORTS, CPU, FAILED, H200, ROOT, load

SCREENSHOTS = ROOT / "docs" / "screenshots"

needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed at /usr/bin/chromium "
           "(scripts/install-test-system-deps.sh installs it as root)")


class _Server:
    """A static file server on 127.0.0.1 that writes down every request it gets."""

    def __init__(self, root: Path) -> None:
        log: list[str] = []
        self.log = log

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a: object, **kw: object) -> None:
                super().__init__(*a, directory=str(root), **kw)  # type: ignore[arg-type]

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                log.append(self.path)
                super().do_GET()

            def do_POST(self) -> None:
                log.append("POST " + self.path)
                self.send_error(405)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, _Server]]:
    root = tmp_path_factory.mktemp("site")
    server = _Server(root)
    yield root, server
    server.httpd.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium() as b:
        yield b


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _load(browser: Chromium, site: tuple[Path, _Server], name: str, html: str,
          **kw: object) -> tuple[PageResult, list[str]]:
    root, server = site
    (root / name).write_text(html, encoding="utf-8")
    server.log.clear()
    result = browser.open(server.url(name), **kw)  # type: ignore[arg-type]
    return result, list(server.log)


@needs_chromium
@pytest.mark.parametrize(("width", "dark", "mobile", "shot"), [
    (1200, False, False, "report-h200.png"),
    (380, False, True, "report-h200-phone.png"),
    (1200, True, False, "report-h200-dark.png"),
])
def test_the_h200_report_renders_clean(browser: Chromium, site: tuple[Path, _Server],
                                       tmp_path: Path, width: int, dark: bool, mobile: bool,
                                       shot: str) -> None:
    html = render(load(H200), "html", references=True)
    page, requests = _load(browser, site, "report.html", html, width=width, dark=dark,
                           mobile=mobile)
    assert page.errors == []
    assert page.requests == [page.url] and requests == ["/report.html"]
    assert page.scroll_width <= width  # nothing sticks out sideways, even at 380 px
    assert "4,624" in page.text and "ResNet-50 training on NVIDIA H200" in page.text
    w, h = _png_size(page.png)
    assert w == width and h == page.height > 2000
    (tmp_path / shot).write_bytes(page.png)
    if os.environ.get("ROCMATE_UPDATE_SCREENSHOTS") == "1":
        _save_for_docs(tmp_path / shot, SCREENSHOTS / shot)


@needs_chromium
@pytest.mark.parametrize("path", ALL_REPORTS, ids=lambda p: p.name)
def test_every_report_and_comparison_renders_clean(browser: Chromium, site: tuple[Path, _Server],
                                                   path: Path) -> None:
    html = render(load(path), "html", baseline=load(CPU), references=True, all_cards=True)
    page, requests = _load(browser, site, f"{path.stem}.html", html, width=380, mobile=True)
    assert page.errors == [] and requests == [f"/{path.stem}.html"]
    assert page.scroll_width <= 380


def _save_for_docs(png: Path, dest: Path) -> None:
    """Copy a screenshot into the docs, as a 256-colour PNG (a third of the size) when Pillow
    is there."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        from PIL import Image
    except ImportError:
        shutil.copyfile(png, dest)
        return
    with Image.open(png) as im:
        im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(
            dest, optimize=True)


def _hostile_html(port: int) -> str:
    report = load(FAILED)
    run = report.runs[0]
    assert run.error is not None
    base = f"http://127.0.0.1:{port}"
    bait = (f'<img src="{base}/img.png"><script src="{base}/js.js"></script>'
            f'<link rel="stylesheet" href="{base}/css.css"><iframe src="{base}/frame">'
            f'<style>body{{background:url({base}/bg.png)}}</style>'
            f'<meta http-equiv="refresh" content="0;url={base}/refresh">')
    run.error.message = bait
    run.error.advice = bait
    run.settings["note"] = bait
    report.machine.platform["distro_name"] = bait
    return render(report, "html")


@needs_chromium
def test_a_hostile_report_makes_no_request(browser: Chromium,
                                           site: tuple[Path, _Server]) -> None:
    _, server = site
    page, requests = _load(browser, site, "hostile.html", _hostile_html(server.port), width=800)
    assert requests == ["/hostile.html"] and page.requests == [page.url]
    assert page.errors == []
    assert '<img src="http://127.0.0.1' in page.text  # shown as text, not made into an element


@needs_chromium
def test_the_csp_blocks_requests_even_if_escaping_failed(browser: Chromium,
                                                         site: tuple[Path, _Server]) -> None:
    _, server = site
    html = render(load(H200), "html")
    leak = (f'<img src="{server.url("leak.png")}"><link rel="stylesheet" '
            f'href="{server.url("leak.css")}"><div style="background:url('
            f'{server.url("leak-bg.png")})">x</div>')
    html = html.replace("</footer>", f"</footer>{leak}")  # as if a string had not been escaped
    page, requests = _load(browser, site, "leak.html", html, width=800)
    assert requests == ["/leak.html"]
    assert any("Content Security Policy" in line for line in page.errors)


def test_the_screenshots_are_in_the_docs() -> None:
    for name in ("report-h200.png", "report-h200-phone.png"):
        png = (SCREENSHOTS / name).read_bytes()
        width, height = _png_size(png)
        assert width in (1200, 380) and height > 2000
