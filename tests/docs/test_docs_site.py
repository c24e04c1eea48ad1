"""The documentation site as a person sees it (notes/docs.md).

``test_the_built_site_has_its_pages_figures_tables_and_search`` builds the site with
``mkdocs build --strict`` and checks the HTML: every page of the navigation exists, every image a
page shows exists, each paper page holds its whole claims ledger, the API pages hold the entry
points, and the search index finds "Clopper". It runs wherever ``make test`` runs.

``test_a_browser_renders_the_pages_loads_the_figures_and_searches`` opens the built site in
headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by selenium; no browser
is downloaded): the pages render, every image has loaded, and Material's search (a web worker)
lists results for "Clopper". ``make test`` installs Chromium first where it is missing (``make
browser``, beside the Python install); where it cannot (no apt-get, neither root nor sudo, no
network) the test skips with the reason (notes/docs.md).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("aamand25", "imola25", "fukuchi19", "tzamos20")
PAGES = (
    "",
    "getting-started/",
    "auditor/",
    "auditor/worked-audits/",
    *(f"papers/{paper}/" for paper in PAPERS),
    "validating/",
    "api/reference/",
    "api/audit/",
    "DESIGN/",
)
"""Every page of the navigation (mkdocs.yml), as URLs relative to the site's root."""
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from this checkout with ``--strict`` (broken links fail the build)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return out


class _Page(HTMLParser):
    """The images, tables rows and element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.ids: set[str] = set()
        self.rows = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "img" and attributes.get("src"):
            self.images.append(str(attributes["src"]))
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))
        if tag == "tr":
            self.rows += 1


def _parse(site: Path, url: str) -> tuple[_Page, str]:
    html = (site / url / "index.html").read_text(encoding="utf-8")
    page = _Page()
    page.feed(html)
    return page, html


def test_the_built_site_has_its_pages_figures_tables_and_search(site: Path) -> None:
    from dpquant.reference.claims import load_ledger

    ledger = load_ledger()
    shown = 0
    for url in PAGES:
        page, html = _parse(site, url)
        assert "<!-- claims" not in html and "<!-- include" not in html, url
        for src in page.images:
            if urlparse(src).scheme:  # none expected: the site works offline
                pytest.fail(f"{url}: remote image {src}")
            target = (site / url / unquote(src.split("#")[0])).resolve()
            assert target.is_file() and target.stat().st_size > 1000, (url, src)
            shown += 1
        if url.startswith("papers/"):
            paper = url.split("/")[1]
            entries = sum(1 for c in ledger if c.paper == paper)
            assert html.count("<strong>verified</strong>") + html.count(
                "<strong>refuted</strong>"
            ) + html.count("<strong>simulated</strong>") + html.count(
                "<strong>documented</strong>"
            ) + html.count("<strong>todo</strong>") >= entries, paper
            assert f"{entries} entries" in html, paper
    assert shown >= 20  # the papers' figures and the catalogue's plots
    for paper in PAPERS:  # every paper page shows its reproduced figures
        assert _parse(site, f"papers/{paper}/")[0].images, paper
    api = _parse(site, "api/audit/")[0].ids | _parse(site, "api/reference/")[0].ids
    assert {"dpquant.audit.runner.audit_mechanism", "dpquant.audit.wrap.from_callable"} <= api
    assert "dpquant.reference.core.PrivacyClaim" in api
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    hits = {doc["location"].split("#")[0] for doc in index["docs"] if "Clopper" in doc["text"]}
    assert "auditor/" in hits, sorted(hits)
    # the docstrings' Sphinx roles are shown as the code they name, not as written
    role = re.compile(r":(?:func|data|mod|class|meth|attr|exc|obj):<code>")
    for page in ("api/audit/", "api/reference/", "papers/aamand25/", "papers/imola25/"):
        text = (site / page / "index.html").read_text(encoding="utf-8")
        assert "<code>" in text and not role.search(text), page
    assert not any(role.search(doc["text"]) for doc in index["docs"])


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site on a local HTTP server (the search worker does not run from file://)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the docs extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1280,900",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


_BROKEN_IMAGES = (
    "return Array.from(document.images)"
    ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);"
)


@pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium is not installed (make browser installs chromium and chromium-driver; see "
    "build/browser.log for why make test could not)",
)
def test_a_browser_renders_the_pages_loads_the_figures_and_searches(served, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver: object = browser
    pages = {
        "": "dpquant",
        "getting-started/": "Getting started",
        "auditor/worked-audits/": "Worked audits",
        "papers/aamand25/": "aamand25",
        "papers/tzamos20/": "tzamos20",
        "api/audit/": "audit",
    }
    for url, heading in pages.items():
        driver.get(urljoin(served, url))  # type: ignore[attr-defined]
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script("return document.readyState") == "complete"
        )
        h1 = driver.find_element(By.CSS_SELECTOR, "article h1").text  # type: ignore[attr-defined]
        assert heading in h1, (url, h1)
        # rendered by the theme: the navigation and the article are laid out, not raw text
        assert driver.find_element(By.CSS_SELECTOR, "nav.md-nav").is_displayed()  # type: ignore[attr-defined]
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(_BROKEN_IMAGES) == [])
        if url in ("auditor/worked-audits/", "papers/aamand25/", "papers/tzamos20/"):
            shown = driver.execute_script(  # type: ignore[attr-defined]
                "return Array.from(document.images).filter(i => i.naturalWidth > 100).length;"
            )
            assert shown >= 3, (url, shown)
    # the search runs in a web worker: type the query as a person does and read the results
    driver.get(served)  # type: ignore[attr-defined]
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    box = WebDriverWait(driver, 30).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "input.md-search__input")
    )
    box.click()  # the search box of the header (the window is wide)
    box.send_keys("Clopper")
    WebDriverWait(driver, 60).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "li.md-search-result__item")
    )
    results = driver.find_elements(By.CSS_SELECTOR, "li.md-search-result__item")  # type: ignore[attr-defined]
    links = [a.get_attribute("href") for r in results for a in r.find_elements(By.TAG_NAME, "a")]
    assert any("auditor/" in str(link) for link in links), links
    meta = driver.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text  # type: ignore[attr-defined]
    assert re.search(r"\d+ matching document", meta), meta
