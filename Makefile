# Quick start:  make demo   (set up, then transpile and verify every sample)
#               make test   (set up, then run the test suite)
#               make bench  (set up, then time loop, tf.function, pfor, direct and reference per sample)
#               make fuzz   (set up, then run the differential fuzzer: COUNT=1000 SEED=0 JOBS=2)
#               make realcode (set up, then print the rewrite rate on the real-code set)
#               make mutate (set up, then mutation-test the semantic modules: MODULES=dependence ...)
#               make quality (set up, then compare each rewrite with its hand reference: tokens, time, memory)
PYTHON ?= python3
COUNT ?= 1000
SEED ?= 0
JOBS ?= 2
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench fuzz realcode mutate quality clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/pforge check samples/ || true
	$(BIN)/pforge verify samples/
	$(BIN)/pforge verify --decorated samples/

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q

bench: $(BIN)/.installed
	$(BIN)/pforge bench samples/

fuzz: $(BIN)/.installed
	$(BIN)/python -m tests.fuzz --count $(COUNT) --seed $(SEED) --jobs $(JOBS) --failures fuzz-failures

realcode: $(BIN)/.installed
	$(BIN)/python -m tests.realcode -v

mutate: $(BIN)/.installed
	$(BIN)/python -m tests.mutation $(MODULES)

quality: $(BIN)/.installed
	$(BIN)/python benchmarks/quality.py samples/

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache

# make golden: rewrite tests/golden/ from what pforge generates now (the tests only compare);
# review with git diff tests/golden before committing
.PHONY: golden
golden: $(BIN)/.installed
	$(BIN)/python -m tests.update_golden
