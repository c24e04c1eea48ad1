"""The documentation site as a person sees it (notes/docs.md).

``test_the_built_site_has_its_pages_figures_tables_and_search`` builds the site with
``mkdocs build --strict`` and checks the HTML: every page of the navigation exists, every image a
page shows exists, each paper page holds its whole claims ledger, the API pages hold the entry
points, and the search index finds "Clopper". It runs wherever ``make test`` runs.

``test_every_link_of_the_built_files_opens_a_file`` follows every relative link and image of
every built page: each opens a file (never a folder, which is what a directory URL opens from
``file://``), and each ``#anchor`` exists on its page.

``test_the_api_pages_show_functions_and_classes_before_constants`` reads the API pages: the first
documented object is a function or a class, and the modules' constants come last.
``test_the_api_pages_tabulate_every_parameter``: every documented callable's parameters are in
its Parameters table (the docstrings parse as Google style).

The browser tests open the built site in headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium; no browser is downloaded) at a laptop's 1366×768
viewport:

* ``test_from_file_urls_every_navigation_entry_opens_its_page`` opens ``build/docs/index.html``
  as a ``file://`` URL, as a person who built the site does, and clicks every entry of the
  navigation: each lands on its page (the site's navigation and the page's heading), not on a
  folder listing;
* ``test_a_browser_renders_the_pages_loads_the_figures_and_searches`` serves the site over HTTP
  (Material's search runs in a web worker, which does not start from ``file://``): the pages
  render, every image has loaded, and the search lists results for "Clopper";
* ``test_no_table_breaks_a_name_mid_word`` checks every table of every page: no word of the code
  in a cell (a name, a witness, a type) is split across two lines, and the catalogue's table fits
  the page's width.

``make test`` installs Chromium first where it is missing (``make browser``, beside the Python
install); where it cannot (no apt-get, neither root nor sudo, no network) the browser tests skip
with the reason (notes/docs.md).
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
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("aamand25", "imola25", "fukuchi19", "tzamos20")
PAGES = (
    "index.html",
    "getting-started.html",
    "auditor/index.html",
    "auditor/worked-audits.html",
    "auditor/measures.html",
    *(f"papers/{paper}.html" for paper in PAPERS),
    "validating.html",
    "certified/index.html",
    "certified/exhaustive.html",
    "api/reference.html",
    "api/audit.html",
    "api/certify.html",
    "DESIGN.html",
)
"""Every page of the navigation (mkdocs.yml), as files of the built site (no directory URLs:
the site opens from ``file://``)."""
VIEWPORT = (1366, 768)
"""A laptop's screen, in CSS pixels: the browser tests lay the pages out at this size."""
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
    """The images, links, tables rows and element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.rows = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "img" and attributes.get("src"):
            self.images.append(str(attributes["src"]))
        for name in ("href", "src"):
            if attributes.get(name):
                self.links.append(str(attributes[name]))
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))
        if tag == "tr":
            self.rows += 1


def _parse(site: Path, url: str) -> tuple[_Page, str]:
    html = (site / url).read_text(encoding="utf-8")
    page = _Page()
    page.feed(html)
    return page, html


def test_the_built_site_has_its_pages_figures_tables_and_search(site: Path) -> None:
    from html import escape as html_escape

    from dpquant.reference.claims import STATUSES, load_ledger

    ledger = load_ledger()
    shown = 0
    for url in PAGES:
        page, html = _parse(site, url)
        assert "<!-- claims" not in html and "<!-- include" not in html, url
        for src in page.images:
            if urlparse(src).scheme:  # none expected: the site works offline
                pytest.fail(f"{url}: remote image {src}")
            target = ((site / url).parent / unquote(src.split("#")[0])).resolve()
            assert target.is_file() and target.stat().st_size > 1000, (url, src)
            shown += 1
        if url.startswith("papers/"):
            paper = url.split("/")[1].removesuffix(".html")
            entries = sum(1 for c in ledger if c.paper == paper)
            assert sum(html.count(f"<strong>{status}</strong>") for status in STATUSES) >= entries, paper
            assert f"{entries} entries" in html, paper
    # every entry with a certificate: on the certified page and beside its status, its domain
    certified_html = _parse(site, "certified/index.html")[1]
    for c in (c for c in ledger if c.certificate):
        assert c.id in certified_html, c.id
        assert html_escape(c.domain.split()[0]) in certified_html, c.id
    for url in ("auditor/measures.html", "auditor/index.html"):  # the two groups of no paper
        assert "<strong>verified</strong>" in _parse(site, url)[1], url
    assert shown >= 20  # the papers' figures and the catalogue's plots
    for paper in PAPERS:  # every paper page shows its reproduced figures
        assert _parse(site, f"papers/{paper}.html")[0].images, paper
    api = _parse(site, "api/audit.html")[0].ids | _parse(site, "api/reference.html")[0].ids
    assert {"dpquant.audit.pipeline.runner.audit_mechanism", "dpquant.audit.model.wrap.from_callable"} <= api
    assert "dpquant.reference.core.PrivacyClaim" in api
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    hits = {doc["location"].split("#")[0] for doc in index["docs"] if "Clopper" in doc["text"]}
    assert "auditor/index.html" in hits, sorted(hits)
    # the docstrings' Sphinx roles are shown as the code they name, not as written
    role = re.compile(r":(?:func|data|mod|class|meth|attr|exc|obj):<code>")
    for page in ("api/audit.html", "api/reference.html", "papers/aamand25.html",
                 "papers/imola25.html"):  # fmt: skip
        text = (site / page).read_text(encoding="utf-8")
        assert "<code>" in text and not role.search(text), page
    assert not any(role.search(doc["text"]) for doc in index["docs"])


def test_every_link_of_the_built_files_opens_a_file(site: Path) -> None:
    """From ``file://`` a link to a folder opens the folder's listing, not its ``index.html``:
    every relative link and image of every page names a file, and every ``#anchor`` exists.
    (``404.html`` is left out: a server shows it for any missing URL, so its links start at the
    server's root.)"""
    pages = {
        path.resolve(): _parse(site, path.relative_to(site).as_posix())[0]
        for path in sorted(site.rglob("*.html"))
        if path.name != "404.html"
    }
    problems: list[str] = []
    followed = 0
    for path, page in pages.items():
        for link in page.links:
            parts = urlparse(link)
            if parts.scheme or parts.netloc:  # the theme's credit, a paper's address
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            followed += 1
            where = f"{path.relative_to(site.resolve())}: {link}"
            if target.is_dir():
                problems.append(f"{where} opens a folder")
            elif not target.is_file():
                problems.append(f"{where} is missing")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in pages[target].ids:
                    problems.append(f"{where}: no such anchor")
    assert not problems, "\n".join(problems[:20])
    assert {(site / url).resolve() for url in PAGES} <= set(pages)
    assert followed > 20 * len(PAGES)  # the navigation alone links every page from every page


_OBJECT = re.compile(
    r'<div class="doc doc-object doc-(\w+)">\s*<h\d id="([^"]+)" class="doc doc-heading"'
)
API_PAGES = ("api/audit.html", "api/reference.html", "api/certify.html")


def _documented_objects(html: str) -> list[tuple[str, str, str]]:
    """(kind, id, its HTML up to the next object) of each object mkdocstrings rendered, in order;
    kind is module, class, function or attribute."""
    found = list(_OBJECT.finditer(html))
    ends = [m.start() for m in found[1:]] + [len(html)]
    return [
        (m.group(1), m.group(2), html[m.end() : end]) for m, end in zip(found, ends, strict=True)
    ]


def test_the_api_pages_show_functions_and_classes_before_constants(site: Path) -> None:
    """Every module constant (an upper-case name) of an API page comes after every function and
    class of the page: the constants are at its end, none of them lost. The audit page opens
    with a class or a function (``dpquant.audit.pipeline.runner``'s), the reference page with the
    relations a claim may name (the enum ``dpquant.reference.core.Adjacency``, kept beside the
    classes that use it)."""
    first = {}
    for url in API_PAGES:
        objects = _documented_objects((site / url).read_text(encoding="utf-8"))
        members = [(kind, name) for kind, name, _ in objects if kind != "module"]
        constants = [
            k
            for k, (kind, name) in enumerate(members)
            if kind == "attribute" and re.fullmatch(r"[A-Z][A-Z0-9_]*", name.rpartition(".")[2])
        ]
        callables = [k for k, (kind, _) in enumerate(members) if kind in ("class", "function")]
        assert len(constants) >= (5 if url == "api/certify.html" else 10), url
        assert min(constants) > max(callables), url
        first[url] = members[0]
    assert first["api/audit.html"][0] in ("class", "function"), first
    assert first["api/reference.html"] == ("class", "dpquant.reference.core.Adjacency"), first
    ids = {name for _, name, _ in _documented_objects((site / API_PAGES[0]).read_text("utf-8"))}
    assert {"dpquant.audit.model.limits.DEFAULT_SAMPLES", "dpquant.audit.model.wrap.TRIAL_CALLS"} <= ids


_SECTION = r'<span class="doc-section-title">{}:</span></p>\s*<table>(.*?)</table>'
_ROW = re.compile(r'<tr class="doc-section-item">\s*<td>(.*?)</td>', re.DOTALL)


def _section_names(segment: str, title: str) -> list[str] | None:
    """The first column of an object's ``title`` table (Parameters, Attributes, Returns,
    Raises), as text; None when the object has no such table."""
    table = re.search(_SECTION.format(title), segment, re.DOTALL)
    if table is None:
        return None
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in _ROW.findall(table.group(1))]


def _python_object(path: str) -> Any:
    """The object a documented id names (a module's path, then attributes)."""
    import importlib

    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attribute in parts[k:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(path)


def test_the_api_pages_tabulate_every_parameter(site: Path) -> None:
    """Every documented function, method and class of the API pages that takes parameters shows
    each of them (the signature's, ``self`` aside) in its Parameters table, or, for a data
    class, in its Attributes table or as a documented attribute: the docstrings parse as Google
    style. No table names a parameter the signature lacks. ``audit_mechanism`` also has its
    Returns and Raises tables."""
    import enum
    import inspect

    untabulated: set[str] = set()
    checked = 0
    for url in API_PAGES:
        objects = _documented_objects((site / url).read_text(encoding="utf-8"))
        ids = {name for _, name, _ in objects}
        for kind, name, segment in objects:
            if kind not in ("class", "function"):
                continue
            obj = _python_object(name)
            if getattr(obj, "_is_protocol", False):  # a protocol: what a caller implements
                continue
            if isinstance(obj, type) and issubclass(obj, enum.Enum):  # members, not a constructor
                continue
            try:
                parameters = inspect.signature(obj).parameters
            except ValueError:  # an exception class that keeps the builtin constructor
                continue
            wanted = {p for p in parameters if p not in ("self", "cls")}
            shown = {n.lstrip("*") for n in _section_names(segment, "Parameters") or []}
            assert shown <= set(parameters), (name, shown - set(parameters))  # none stale
            if kind == "class":
                shown |= set(_section_names(segment, "Attributes") or [])
                shown |= {p for p in wanted if f"{name}.{p}" in ids}
            checked += bool(wanted)
            if wanted - shown:
                untabulated.add(name)
    assert checked >= 150, checked
    assert not untabulated, sorted(untabulated)
    audit = (site / "api/audit.html").read_text(encoding="utf-8")
    segment = next(
        s for _, name, s in _documented_objects(audit) if name.endswith("runner.audit_mechanism")
    )
    assert (_section_names(segment, "Parameters") or [])[:3] == ["mech", "pairs", "domain"]
    assert _section_names(segment, "Returns") == ["AuditReport"]
    assert _section_names(segment, "Raises") == ["ValueError"]


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
        "--disable-dev-shm-usage", f"--window-size={VIEWPORT[0]},{VIEWPORT[1] + 200}",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    # the page's own viewport, exactly a laptop's screen (the window's size includes its frame)
    width, height = VIEWPORT
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield driver
    finally:
        driver.quit()


_BROKEN_IMAGES = (
    "return Array.from(document.images)"
    ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);"
)


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium is not installed (make browser installs chromium and chromium-driver; see "
    "build/browser.log for why make test could not)",
)


def _navigation() -> list[tuple[str, str]]:
    """Every entry of mkdocs.yml's navigation, in order: (its title, its page's source)."""
    import yaml

    def walk(items: list[dict[str, object]]) -> Iterator[tuple[str, str]]:
        for item in items:
            for title, value in item.items():
                if isinstance(value, list):
                    yield from walk(value)
                else:
                    yield title, str(value)

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return list(walk(config["nav"]))


def _heading(source: str) -> str:
    """The page's title as the reader sees it: its first ``# `` line, without code marks."""
    text = (ROOT / "docs" / source).read_text(encoding="utf-8")
    return next(line[2:] for line in text.splitlines() if line.startswith("# ")).replace("`", "")


def _loaded(driver: object) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


_NAV_LINKS = (
    "return Array.from(document.querySelectorAll('nav.md-nav--primary a.md-nav__link'))"
    ".filter(a => a.getClientRects().length > 0 && a.innerText.trim() === arguments[0]"
    " && !(a.getAttribute('href') || '').startsWith('#'));"
)
"""The shown links of the site's navigation titled ``arguments[0]``, other than the page's own
headings, found by the page in one call: element by element, selenium asks the browser three
times for each link of the navigation, on each page (14 of the test's 22 s on two busy cores)."""


@needs_chromium
def test_from_file_urls_every_navigation_entry_opens_its_page(site: Path, browser) -> None:
    """The built files open in a browser from ``file://`` (the README's first way): click every
    navigation entry in turn, each from the page the previous click opened, and land on its page,
    with the site's navigation and the page's heading; a directory URL would open a folder
    listing, which has neither. Images load there too; the search, which needs the served site
    (README), is not offered."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver: object = browser
    entries = _navigation()
    assert len(entries) == len(PAGES)
    driver.get((site / "index.html").as_uri())  # type: ignore[attr-defined]
    _loaded(driver)
    for title, source in entries:
        before = driver.current_url  # type: ignore[attr-defined]
        links = driver.execute_script(_NAV_LINKS, title)  # type: ignore[attr-defined]
        assert len(links) == 1, (before, title, len(links))
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", links[0])  # type: ignore[attr-defined]
        driver.execute_script("window.__left = false;")  # type: ignore[attr-defined]
        links[0].click()
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script(
                "return window.__left === undefined && document.readyState === 'complete'"
            )
        )  # a new document has loaded (the marker belonged to the previous one)
        url = driver.current_url  # type: ignore[attr-defined]
        page = driver.execute_script(  # type: ignore[attr-defined]
            "const nav = document.querySelector('nav.md-nav--primary');"
            "const h1 = document.querySelector('article h1');"
            "return {nav: nav !== null && nav.offsetWidth > 0,"
            "        h1: h1 === null ? null : h1.textContent, title: document.title};"
        )
        assert page["nav"], f"{title!r} from {before} opened {url}, not a page of the site: {page}"
        assert page["h1"] is not None and page["h1"].strip().rstrip("¶").strip() == _heading(
            source
        ), (title, url, page)
        assert url == (site / source).with_suffix(".html").as_uri(), (title, url)
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(_BROKEN_IMAGES) == [])
        search = driver.find_element(By.CSS_SELECTOR, "input.md-search__input")  # type: ignore[attr-defined]
        assert not search.is_displayed(), "the search shows on file://: update README and notes"


@needs_chromium
def test_a_browser_renders_the_pages_loads_the_figures_and_searches(served, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver: object = browser
    pages = {
        "index.html": "dpquant",
        "getting-started.html": "Getting started",
        "auditor/worked-audits.html": "Worked audits",
        "auditor/measures.html": "Claims of every kind",
        "papers/aamand25.html": "aamand25",
        "papers/tzamos20.html": "tzamos20",
        "api/audit.html": "audit",
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
        if url in ("auditor/worked-audits.html", "papers/aamand25.html", "papers/tzamos20.html"):
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
    assert any("auditor/index.html" in str(link) for link in links), links
    meta = driver.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text  # type: ignore[attr-defined]
    assert re.search(r"\d+ matching document", meta), meta


_BROKEN_WORDS = """
const broken = [];
let checked = 0;
for (const code of document.querySelectorAll("article table td code, article table th code")) {
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set(Array.from(range.getClientRects())
        .filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size === 0) continue;  // not laid out (a closed details block)
      checked += 1;
      if (lines.size > 1) broken.push(word[0]);
    }
  }
}
return {checked: checked, broken: broken};
"""
"""The words (runs without a space) of the code in table cells that the layout splits across
lines: a word's text boxes on two lines have two distinct tops."""


@needs_chromium
def test_no_table_breaks_a_name_mid_word(site: Path, browser) -> None:
    """At 1366×768 no table of any page splits a word of its code (an entry's name, a test's name,
    a parameter's type) across two lines, and the catalogue's table fits the page's width."""
    driver: object = browser
    checked = 0
    for url in PAGES:
        driver.get((site / url).as_uri())  # type: ignore[attr-defined]
        _loaded(driver)
        found = driver.execute_script(_BROKEN_WORDS)  # type: ignore[attr-defined]
        assert found["broken"] == [], (url, found["broken"][:10])
        checked += found["checked"]
        if url == "auditor/worked-audits.html":
            assert found["checked"] >= 20, found  # the catalogue's names and witnesses
            widths = driver.execute_script(  # type: ignore[attr-defined]
                "const page = document.querySelector('article').clientWidth;"
                "return Array.from(document.querySelectorAll('article table'))"
                ".filter(t => t.rows[0].textContent.includes('exact ε on the witness'))"
                ".map(t => [t.getBoundingClientRect().width, page]);"
            )
            # the table's laid-out width within the page's text column: no sideways scrolling
            assert len(widths) == 1 and widths[0][0] <= widths[0][1], widths
    assert checked >= 300, checked
