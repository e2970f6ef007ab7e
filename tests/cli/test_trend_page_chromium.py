"""The trend page as a person sees it: ``ndrpdr trend`` output opened in a real headless Chromium.

Debian's chromium and chromedriver through selenium; skipped only when
chromium is missing and NDRPDR_REQUIRE_CHROMIUM is unset (CI sets it). The
page is loaded from file:// as from Jenkins artifacts; the assertions are
on the DOM the browser built: one chart per test, change-point markers on
the stepped test only, the stepped test in the regressions table, no console
errors, no request beyond the file itself. Screenshots go to
``tests/artifacts/trend/`` (or ``$NDRPDR_TEST_ARTIFACTS/trend``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from trend_helpers import FLAT, STEP_NIGHT, STEPPED

from ndrpdr.cli.main import main

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ARTIFACTS = (
    Path(
        os.environ.get("NDRPDR_TEST_ARTIFACTS") or Path(__file__).resolve().parents[1] / "artifacts"
    )
    / "trend"
)


def _chromium_missing() -> str | None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    return f"{' and '.join(missing)} not installed" if missing else None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    why = _chromium_missing()
    if why:
        if os.environ.get("NDRPDR_REQUIRE_CHROMIUM"):
            pytest.fail(f"NDRPDR_REQUIRE_CHROMIUM is set but {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,1400"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, trend_runs: list[Path]) -> Path:
    out = tmp_path_factory.mktemp("trend") / "trend.html"
    assert main(["trend", *map(str, trend_runs), "-o", str(out), "--title", "nightly sim"]) == 0
    return out


def _requests(driver: Any) -> list[str]:
    """URLs the page asked the network for (Chrome's performance log)."""
    import json

    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def test_the_page_in_chromium_shows_each_test_and_marks_the_step_only(
    browser: Any, page: Path
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get_log("performance")  # drop what came before
    browser.get(page.as_uri())
    articles = browser.find_elements(By.CSS_SELECTOR, "article.trend-test")
    assert len(articles) == 3
    by_test = {a.get_attribute("data-test"): a for a in articles}
    assert set(by_test) == {STEPPED.name, *(t.name for t in FLAT)}
    for article in articles:
        plots = article.find_elements(By.CSS_SELECTOR, "svg.trend-plot")
        assert len(plots) == 1 and plots[0].size["width"] > 500 and plots[0].size["height"] > 150
    stepped = by_test[STEPPED.name]
    marks = stepped.find_elements(By.CSS_SELECTOR, "g.change-point.regression")
    assert marks and {m.get_attribute("data-run") for m in marks} == {f"nightly-{STEP_NIGHT:03d}"}
    assert marks[0].is_displayed()
    for test in FLAT:
        assert by_test[test.name].find_elements(By.CSS_SELECTOR, "g.change-point") == []
    assert len(by_test[FLAT[0].name].find_elements(By.CSS_SELECTOR, "svg.latency-plot")) == 1
    rows = browser.find_elements(By.CSS_SELECTOR, "#regressions tbody tr.regression")
    assert rows and all(STEPPED.name in row.text for row in rows)
    assert f"nightly-{STEP_NIGHT:03d}" in rows[0].text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "trend-top.png"))
    # Hovering the stepped chart shows the nearest run's values.
    ActionChains(browser).move_to_element(stepped.find_element(By.CSS_SELECTOR, "svg")).perform()
    tip = browser.find_element(By.ID, "tip")
    assert tip.is_displayed() and "run nightly-" in tip.text and "NDR lower" in tip.text
    browser.execute_script("arguments[0].scrollIntoView()", stepped)
    stepped.screenshot(str(ARTIFACTS / "trend-stepped-test.png"))
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert [url for url in _requests(browser) if url != page.as_uri()] == []
    print(f"screenshots: {ARTIFACTS}")
