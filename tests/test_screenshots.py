"""The site as a reader sees it, compared with reference screenshots committed beside
this file: the home page, the 404 page, and each game's rules page and one card page, at
desktop (1280 px) and phone (390 px) width, in the session's headless Chromium.

A layout change shows up here, and in review as changed PNGs. To accept one on purpose:

    CARTIERA_UPDATE_SCREENSHOTS=1 python3 -m pytest -n 0 tests/test_screenshots.py

The references are the window's first screen, scaled to a quarter and greyscale (a few
kilobytes each); a page matches when its mean difference stays under TOLERANCE grey
levels, which absorbs font anti-aliasing and leaves any moved block, lost style or raw
Markdown well above it.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

REFERENCES = Path(__file__).parent / "screenshots"
UPDATE = os.environ.get("CARTIERA_UPDATE_SCREENSHOTS") == "1"
TOLERANCE = 4.0  # mean absolute difference, grey levels out of 255
SCALE = 4
WIDTHS = {"desktop": (1280, 1000, False), "phone": (390, 844, True)}
CARD_PAGE = {
    "bless": "re-luce",
    "blitz": "fuoco",
    "samurai-sword": "shogun",
    "mazzo": "mazziere",
    "bldng": "triangolo-giallo",
}
PAGES = {
    "home": "/",
    "404": "/non-esiste/",
    **{f"{game}-regole": f"/giochi/{game}/regole/" for game in CARD_PAGE},
    **{f"{game}-carta": f"/giochi/{game}/carte/{code}/" for game, code in CARD_PAGE.items()},
}

pytestmark = pytest.mark.slow


def shot(driver: Any, url: str, width: int, height: int, mobile: bool) -> Image.Image:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )
    driver.get(url)
    driver.execute_script("return document.fonts.ready")
    # no caret, no transitions: the same page gives the same pixels
    driver.execute_script(
        "const s = document.createElement('style'); s.textContent = '*, *::before, *::after "
        "{ transition: none !important; animation: none !important; caret-color: transparent "
        "!important; }'; document.head.append(s); document.activeElement.blur();"
    )
    image = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("L")
    image = image.crop((0, 0, width, height))
    return image.resize((width // SCALE, height // SCALE), Image.Resampling.LANCZOS)


def difference(a: Image.Image, b: Image.Image) -> float:
    if a.size != b.size:
        return 255.0
    return float(ImageStat.Stat(ImageChops.difference(a, b)).mean[0])


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_page_looks_as_reviewed(
    session_browser: Any, project_server: str, page: str, width: str
) -> None:
    w, h, mobile = WIDTHS[width]
    try:
        image = shot(session_browser, project_server + PAGES[page], w, h, mobile)
    finally:
        session_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    reference = REFERENCES / f"{page}-{width}.png"
    if UPDATE or not reference.exists():
        REFERENCES.mkdir(exist_ok=True)
        image.save(reference, optimize=True)
        if not UPDATE:
            pytest.fail(f"no reference for {reference.name}: written, review and commit it")
        return
    diff = difference(image, Image.open(reference).convert("L"))
    if diff > TOLERANCE:
        image.save(reference.with_suffix(".actual.png"))
    assert diff <= TOLERANCE, (
        f"{reference.name}: mean difference {diff:.1f} grey levels (see "
        f"{reference.with_suffix('.actual.png').name}); CARTIERA_UPDATE_SCREENSHOTS=1 accepts it"
    )


def test_the_references_stay_small() -> None:
    files = sorted(REFERENCES.glob("*.png"))
    references = [f for f in files if not f.name.endswith(".actual.png")]
    assert len(references) == 2 * len(PAGES)
    assert sum(f.stat().st_size for f in references) < 2_000_000
