# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/uopc run examples/vector.uir
	$(BIN)/uopc run examples/affine.uir --param 0=5
	$(BIN)/uopc trace examples/affine.uir
	$(BIN)/uopc explore normal-forms examples/order.uir
	@echo
	@echo "uopc is in $(BIN), not on your PATH: run $(BIN)/uopc, or 'source $(BIN)/activate' first."

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
