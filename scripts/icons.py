"""Draw the home-screen icons (PNG) from static/icon.svg with headless Chromium.

    .venv/bin/python scripts/icons.py

Writes static/icon-180.png (iOS), icon-192.png and icon-512.png (the manifest).
"""

from pathlib import Path

from playwright.sync_api import sync_playwright

STATIC = Path(__file__).resolve().parent.parent / "static"
SIZES = (180, 192, 512)


def main():
    svg = (STATIC / "icon.svg").read_text()
    # A home-screen icon fills its square: the die on the page's dark ground, no transparent corners.
    page_html = (
        "<html><body style='margin:0;background:#0d1014'>"
        f"<div style='width:100vw;height:100vh'>{svg.replace('<svg ', '<svg width=100% height=100% ')}</div>"
        "</body></html>"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        for size in SIZES:
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(page_html)
            page.screenshot(path=STATIC / f"icon-{size}.png")
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
