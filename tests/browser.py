"""Headless Chromium for the page tests and the page benchmark: Debian's ``chromium`` and
``chromium-driver`` driven by Selenium, never a downloaded browser (``.ci/run`` installs them)."""
from __future__ import annotations

import os
import shutil
from typing import Any

CHROMIUM = os.environ.get("UOPC_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("UOPC_CHROMEDRIVER", "/usr/bin/chromedriver")


class NoBrowser(RuntimeError):
  """Chromium or its driver is missing: the browser tests fail (they are never skipped)."""


def chromium(width: int = 1400, height: int = 1000) -> Any:
  """A headless Chromium WebDriver that keeps the browser console (``driver.get_log("browser")``)."""
  missing = [p for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
  if missing:
    raise NoBrowser(f"{', '.join(missing)} not found: install Debian's chromium and chromium-driver "
                    "(apt-get install -y chromium chromium-driver; .ci/run does)")
  from selenium import webdriver
  from selenium.webdriver.chrome.service import Service
  opts = webdriver.ChromeOptions()
  opts.binary_location = CHROMIUM
  for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
    opts.add_argument(a)
  opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
  return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def console_errors(driver: Any) -> list[str]:
  """The console's errors since the last call (an uncaught exception is one)."""
  return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
