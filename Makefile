# Quick start:  make demo   (set up, then transpile and verify every sample)
#               make test   (set up, then run the test suite)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/pforge check samples/ || true
	$(BIN)/pforge verify samples/

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
