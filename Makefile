# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One venv, two stamps: uopc with its own dependencies only (all `make demo` needs), then the extras the tests need on top
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test test-cores static browser bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .   # no extras: the demo runs on uopc's own dependencies (README: "Dependencies, and why each is there")
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,tinygrad,pytensor,cluster,prove]'   # the optional IRs', the cluster's and the SMT layer's tests need them (they fail, never skip, without)
	touch $(TEST_STAMP)

demo: $(STAMP)
	$(BIN)/uopc run examples/vector.uir
	$(BIN)/uopc run examples/affine.uir --param 0=5
	$(BIN)/uopc trace examples/affine.uir
	$(BIN)/uopc explore normal-forms examples/order.uir
	@echo
	@echo "uopc is in $(BIN), not on your PATH: run $(BIN)/uopc, or 'source $(BIN)/activate' first."

# The explorer's tests once more on the pure-Python core (the default run uses the C core wherever it applies);
# the differential tests are left out, they run both cores by themselves
EXPLORER_TESTS := $(filter-out tests/test_relational_native_%.py,$(sort $(wildcard tests/test_relational_*.py tests/test_explore_*.py)))
# and the other three C extensions' Python twins (uopc/native_switch.py): the let form's text, the .uir reader, saturation
TWIN_TESTS := tests/test_term.py tests/test_uir.py tests/test_egraph_saturate.py

test: browser $(TEST_STAMP) static
	$(BIN)/python -m pytest -n 2

# What CI runs after `make test`: every C extension's tests on its Python twin, and the C files' tests under AddressSanitizer
test-cores: $(TEST_STAMP)
	UOPC_NATIVE=0 $(BIN)/python -m pytest -n 2 -p no:cacheprovider -o addopts=-q $(EXPLORER_TESTS) $(TWIN_TESTS)
	bash dev/asan.sh   # the C cores' differential and reduction tests under AddressSanitizer

# Chromium and its driver for the page tests: installed as root with apt, else one line says how
browser:
	@bash dev/browser.sh

# The static gate (configured in pyproject.toml): lint, then types; either failing stops `make test` before pytest.
static: $(TEST_STAMP)
	$(BIN)/ruff check uopc explore tests bench dev
	$(BIN)/python dev/typecheck.py
	$(BIN)/python dev/complexity.py   # no Python block above cyclomatic complexity 30, no C function above 40

# the bench adds Maude (the `bench` extra), the peer it measures the explorer against, to what the tests install (its
# tinygrad, pytensor and cluster tables need those extras)
BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): $(TEST_STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
