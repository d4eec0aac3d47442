"""Test-suite options: ``--slow`` (or env ``UOPC_SLOW=1``) runs the property tests with many more examples,
and the tests marked ``@pytest.mark.slow`` (heavy measurements the default run leaves out, not skips)."""
import os

from hypothesis import HealthCheck, settings


def pytest_addoption(parser):
  parser.addoption("--slow", action="store_true", help="run property tests with many more hypothesis examples, and the tests marked slow")


def slow_run(config) -> bool: return bool(config.getoption("--slow") or os.environ.get("UOPC_SLOW"))


def pytest_configure(config):
  config.addinivalue_line("markers", "slow: a heavy test run only with --slow (UOPC_SLOW=1); the default run deselects it")
  # under CI (env CI set, as .ci/run does) the examples are derandomized: a gate must not fail on a new random draw that
  # a local run would have found first; local runs draw fresh examples every time, and --slow draws 2000
  settings.register_profile("fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                            derandomize=bool(os.environ.get("CI")))
  settings.register_profile("slow", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
  settings.load_profile("slow" if slow_run(config) else "fast")


def pytest_collection_modifyitems(config, items):
  # deselected, not skipped: the default run reports them as deselected, --slow runs them
  if slow_run(config): return
  heavy = [item for item in items if item.get_closest_marker("slow")]
  if heavy:
    config.hook.pytest_deselected(items=heavy)
    items[:] = [item for item in items if not item.get_closest_marker("slow")]
