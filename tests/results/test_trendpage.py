"""The trend page is one self-contained file: charts that parse, nothing fetched, text escaped."""

from __future__ import annotations

import datetime
import random
import re
import xml.etree.ElementTree as ET

from ndrpdr.trend.compare import TestKey, Value
from ndrpdr.trend.history import Sample
from ndrpdr.trend.trendpage import trend_html, trend_report
from ndrpdr.trend.trendseries import Latency, build_trend

UTC = datetime.timezone.utc


def _samples(name: str, levels: list[float], seed: int) -> list[Sample]:
    rng = random.Random(seed)
    return [
        Sample(
            key=TestKey(name, "64", "ethip4-ip4base"),
            run_id=f"run-{n}",
            started=datetime.datetime(2026, 3, 1, 22, tzinfo=UTC) + datetime.timedelta(days=n),
            testbed="sim",
            kind="ndrpdr",
            status="passed" if n != 5 else "failed",
            caveat=n == 5,
            metrics={
                "NDR lower": Value(v * (1 + rng.gauss(0, 0.01)), v * 0.005),
                "PDR lower": Value(v * 1.02, v * 0.005),
            },
        )
        for n, v in enumerate(levels)
    ]


def test_the_page_holds_one_parsable_chart_per_test_and_fetches_nothing() -> None:
    odd = 'a<b>&"c</script>'
    samples = _samples("stepped", [1e7] * 20 + [1.1e7] * 10, 1) + _samples(odd, [5e6] * 30, 2)
    latency = {("run-3", samples[0].key): Latency(90.0, 12.5, 40.0)}
    page = trend_html(build_trend(samples, latency=latency), title="t <&>")
    svgs = re.findall(r"<svg xmlns=.*?</svg>", page, flags=re.S)
    charts = [ET.fromstring(svg) for svg in svgs if 'class="trend-plot"' in svg[:120]]
    assert len(charts) == 2
    changes = list(charts[1].iter("{http://www.w3.org/2000/svg}g"))
    assert any("change-point progression" in (g.get("class") or "") for g in changes)
    assert 'class="latency-plot"' in page and 'class="caveat"' in page
    assert odd not in page and "a&lt;b&gt;&amp;&quot;c&lt;/script&gt;" in page
    assert "<title>t &lt;&amp;&gt;</title>" in page
    addresses = set(re.findall(r"(?:https?:)?//[^\s\"'<>)]+", page))
    assert addresses == {"http://www.w3.org/2000/svg"}  # the SVG namespace only, never fetched
    assert not re.search(r"\b(src|href)=\"(?!#)", page)
    assert "<script src" not in page and "@import" not in page and "url(" not in page


def test_a_page_without_runs_says_so() -> None:
    assert "No runs." in trend_html(build_trend([]))
    assert "No runs." in trend_report([], title="empty")
