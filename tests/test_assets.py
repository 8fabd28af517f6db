"""Page weight: compressed answers, static files cached until they change."""

import re

from .test_web import make_seat

CHROME = {"Accept-Encoding": "gzip, deflate, br, zstd"}
STATIC = re.compile(r'(?:href|src)="(/static/[^"]+)"')


def _first_load(browser, path):
    """What a phone downloads for a page it has never seen: the page and each file it links, as sent."""
    page = browser.get(path, headers=CHROME)
    sizes = {path: len(page.get_data())}
    for url in set(STATIC.findall(browser.get(path).get_data(as_text=True))):
        answer = browser.get(url, headers=CHROME)
        assert answer.status_code == 200, url
        sizes[url] = len(answer.get_data())
    return page, sizes


def test_the_room_page_weighs_at_most_60_kb_compressed_on_first_load(app):
    browser, code = make_seat(app)
    page, sizes = _first_load(browser, f"/r/{code}")
    assert page.headers["Content-Encoding"] in ("zstd", "br", "gzip")
    assert any("app.js" in url for url in sizes) and any("htmx" in url for url in sizes)
    assert sum(sizes.values()) <= 60 * 1024, sizes


def test_a_browser_without_compression_gets_the_same_page_plain(app):
    browser, code = make_seat(app)
    plain = browser.get(f"/r/{code}", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    assert code in plain.get_data(as_text=True)


def test_static_urls_carry_their_content_hash_and_are_kept_a_year(app):
    browser, code = make_seat(app)
    urls = STATIC.findall(browser.get(f"/r/{code}").get_data(as_text=True))
    assert urls and all(re.search(r"\?v=[0-9a-f]{12}$", url) for url in urls)
    for url in urls:
        cache = browser.get(url).headers["Cache-Control"]
        assert "immutable" in cache and "max-age=31536000" in cache, url
    # An old or missing hash is answered, but checked again next time.
    path = urls[0].split("?")[0]
    for stale in (path, path + "?v=000000000000"):
        answer = browser.get(stale)
        assert answer.status_code == 200 and "no-cache" in answer.headers["Cache-Control"]
