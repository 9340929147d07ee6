# heron-sim — every target creates .venv and installs the package on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
GAMES  ?= 10000
SEED   ?= 1

.PHONY: report simulate explore test test-slow test-all bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

## The main job: run the seed's test plan and write results/report.html and results/report.md.
report: $(STAMP)
	$(BIN)/heron-sim report --out results

## Compare 8d8, 7d8, 10d8 and 10d6 over $(GAMES) four-player greedy games each.
simulate: $(STAMP)
	$(BIN)/heron-sim modes --games $(GAMES) --seed $(SEED) --out runs/modes

## The explorer: a local page (127.0.0.1, a free port, printed) where you change a rule and
## watch its paired effect; Ctrl-C stops it. PORT=8765 for a fixed port.
explore: $(STAMP)
	$(BIN)/heron-sim explore $(if $(PORT),--port $(PORT)) --open

## The default test suite (fast versions of every statistical test).
test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

## The long statistical runs only.
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

test-all: $(STAMP)
	$(BIN)/python -m pytest -q

## Performance figures (medians of several runs); not a test.
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +
