PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test bench results docs browser clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/predictkit demo

test: $(STAMP)
	$(PY) -m pytest -n 2 -q

# every benchmark, as a module from the repository root; output in build/benchmarks/ only
bench: $(STAMP)
	$(PY) -m benchmarks.run_all

# the results pages of docs/results/, rendered from their committed JSON (fast);
# `make results RERUN=1` reruns the experiments on the shared traces first (hours)
RESULT_SCRIPTS := estimate_models leung queue_bounds runtime_accuracy scheduling varq_experiment
results: $(STAMP)
	@set -e; for script in $(RESULT_SCRIPTS); do \
	  if [ -n "$(RERUN)" ]; then \
	    $(PY) -m benchmarks.$$script --output-dir build/benchmarks >/dev/null; \
	    cp build/benchmarks/$$script.json docs/results/$$script.json; \
	  fi; \
	  $(PY) -m benchmarks.$$script --from-json docs/results/$$script.json --output-dir docs/results; \
	  echo "docs/results: $$script rendered from docs/results/$$script.json"; \
	done

docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

browser:
	command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

clean:
	rm -rf $(VENV) docs/_build .pytest_cache build/benchmarks
