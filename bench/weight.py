"""A page's first load: what a phone downloads for a page it has never seen, each file as sent, in KB.

    .venv/bin/python bench/weight.py [room board home class ...] [--checkout DIR]

The page and each file its tags make a browser fetch at first (`fetched`: its stylesheets, icon,
images and scripts), as answered to Chromium's Accept-Encoding. The room is a seated player's,
the class a teacher's desk. `--checkout` weighs another checkout's answers the same way (e.g.
`git worktree add /tmp/before COMMIT`). tests/test_assets.py holds the room page to its budget
with the same count.
"""

import argparse
import sys
from html.parser import HTMLParser
from pathlib import Path

CHROME = {"Accept-Encoding": "gzip, deflate, br, zstd"}


class _Fetched(HTMLParser):
    """The files a browser fetches to show a page: its stylesheets, icon, images and scripts.

    Not the apple-touch-icon nor the manifest: those only when the page goes on a home screen.
    """

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and set((attrs.get("rel") or "").split()) & {"stylesheet", "icon"}:
            self.urls.append(attrs["href"])
        elif tag in ("script", "img") and attrs.get("src"):
            self.urls.append(attrs["src"])


def fetched(html: str) -> list[str]:
    """The URLs a browser fetches at first for a page with this HTML, each once, in the page's order."""
    parser = _Fetched()
    parser.feed(html)
    return list(dict.fromkeys(parser.urls))


def first_load(browser, path):
    """The page at `path` and each file it fetches, as sent to Chromium: (the page's answer, {url: bytes})."""
    page = browser.get(path, headers=CHROME)
    sizes = {path: len(page.get_data())}
    for url in fetched(browser.get(path).get_data(as_text=True)):
        answer = browser.get(url, headers=CHROME)
        assert answer.status_code == 200, url
        sizes[url] = len(answer.get_data())
    return page, sizes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", default=["room", "board", "home", "class"])
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.checkout))
    from maxchen.server import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "bench"})
    player, teacher = app.test_client(), app.test_client()
    room = player.post("/rooms", data={"name": "Ann", "rules": "maexchen"}).headers["Location"]
    desk = teacher.post("/classes", data={}).headers["Location"]
    pages = {
        "room": (player, room),
        "board": (player, room + "/board"),
        "home": (player, "/"),
        "class": (teacher, desk),
    }
    pages |= {name: (player, "/" + name) for name in ("learn", "fair", "rules")}
    for name in args.pages:
        browser, path = pages[name]
        page, sizes = first_load(browser, path)
        print(f"{name}: {sum(sizes.values()) / 1024:.1f} KB ({page.headers.get('Content-Encoding')} page)")
        for url, size in sorted(sizes.items(), key=lambda item: -item[1]):
            print(f"  {size / 1024:6.2f}  {url.split('?')[0]}")


if __name__ == "__main__":
    main()
