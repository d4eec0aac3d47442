"""The ``--format html`` page at scale: ``python -m bench html``.

Explorations of 1,000 and 10,000 states (the sharing-free sum of ``bench.explore``
under the unit rules, cut by ``max_states``) become pages; headless Chromium
(``tests/browser.py``: Debian's chromium and chromium-driver) opens each and the table
gives the page's size, the Python time to build it, and the browser's times: open (load
to the viewer's ready flag: the overview drawn, state #0 inspected), click (open a depth
group and inspect a state, its DAG and path), search (type a term into the search
box: substrings) and pattern (type ``mul(?x, 1)``: structural matching). The bar: a 10,000-state page is interactive in under 3 s.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.explore import sharing_free_sum, unit_rules

SIZES = (1_000, 10_000)


def build(n: int, path: Path) -> tuple[int, int, float]:
  """Write the page of an n-state exploration; (states, edges, seconds to build the JSON and the page)."""
  from uopc.cli.reports import html, exploration as report
  from uopc.relational import canonical, explore
  prog, pm = sharing_free_sum(7), unit_rules()   # 4**7 = 16,384 graphs: max_states cuts it at n
  ex = explore(prog, pm, max_states=n, max_depth=50).run()
  t0 = time.perf_counter()
  data = report.to_json(ex, prog, "units", *canonical(prog, pm))
  path.write_text(html.page(data, "reachable", f"{n} states"), encoding="utf-8")
  return len(ex.states), len(ex.edges), time.perf_counter() - t0


def browse(driver, path: Path) -> tuple[float, float, float, float]:
  """(open, click, search, pattern) seconds in the browser."""
  from selenium.webdriver.common.by import By
  t0 = time.perf_counter()
  driver.get(path.as_uri())
  while driver.execute_script("return document.body.dataset.ready") != "1": time.sleep(0.005)
  t1 = time.perf_counter()
  driver.find_element(By.CSS_SELECTOR, '.depthrow[data-depth="3"]').click()
  driver.find_elements(By.CSS_SELECTOR, ".states .chip")[5].click()
  t2 = time.perf_counter()
  box = driver.find_element(By.ID, "search")
  box.send_keys("add(p")
  driver.find_element(By.CSS_SELECTOR, "#search-results .muted")
  t3 = time.perf_counter()
  box.clear()
  box.send_keys("mul(?x, 1)")   # a pattern: every state's term parsed (once) and matched node by node
  driver.find_element(By.CSS_SELECTOR, "#search-results .muted")
  return t1 - t0, t2 - t1, t3 - t2, time.perf_counter() - t3


def main() -> None:
  from tests.browser import NoBrowser, chromium, console_errors
  print("the --format html page in headless Chromium (one browser, both pages; the bar: 10,000 states open in < 3 s)")
  try: driver = chromium()
  except NoBrowser as e:
    print(f"not run: {e}")
    return
  rows = []
  try:
    with tempfile.TemporaryDirectory() as d:
      for n in SIZES:
        path = Path(d) / f"states{n}.html"
        states, edges, secs = build(n, path)
        rows.append((states, edges, path.stat().st_size / 1e6, secs, *browse(driver, path)))
        if errors := console_errors(driver): print(f"console errors: {errors}")
  finally: driver.quit()
  print(f"{'states':>7s} {'edges':>7s} {'page MB':>8s} {'build s':>8s} {'open s':>7s} {'click s':>8s} {'search s':>9s} {'pattern s':>10s}")
  for states, edges, mb, secs, t_open, t_click, t_search, t_pattern in rows:
    print(f"{states:7d} {edges:7d} {mb:8.1f} {secs:8.2f} {t_open:7.2f} {t_click:8.2f} {t_search:9.2f} {t_pattern:10.2f}")
  small, big = rows[0], rows[-1]
  print(f"10x the states: open x{big[4] / small[4]:.1f}, click x{big[5] / small[5]:.1f}, search x{big[6] / small[6]:.1f}, "
        f"pattern x{big[7] / small[7]:.1f}")


if __name__ == "__main__":
  main()
