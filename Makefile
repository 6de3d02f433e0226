PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test bench docs browser clean

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

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

browser:
	command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

clean:
	rm -rf $(VENV) docs/_build .pytest_cache
