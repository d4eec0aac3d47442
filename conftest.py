"""Test-suite options: ``--slow`` (or env ``UOPC_SLOW=1``) runs the property tests with many more examples."""
import os

from hypothesis import HealthCheck, settings


def pytest_addoption(parser):
  parser.addoption("--slow", action="store_true", help="run property tests with many more hypothesis examples")


def pytest_configure(config):
  settings.register_profile("fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
  settings.register_profile("slow", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
  settings.load_profile("slow" if config.getoption("--slow") or os.environ.get("UOPC_SLOW") else "fast")
