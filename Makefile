# Quick start:  make demo   (set up, then transpile and verify every sample)
#               make test   (set up, then run the test suite)
#               make bench  (set up, then time loop, tf.function, pfor, direct and reference per sample)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

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

bench: $(BIN)/.installed
	$(BIN)/pforge bench samples/

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
