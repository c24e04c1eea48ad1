# Two commands on a fresh machine with only Python and make: `make test` and `make audit`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
WORKERS ?= 2

.PHONY: test audit lint bench bench-audit claims docs docs-test clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,distributed,peers,docs]'
	touch $(STAMP)

# lint, the import contracts of docs/DESIGN.md, the type check, then every test
test: lint $(STAMP)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy reference audit dpquant
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(PY) -m pytest -q -n $(WORKERS) --dist worksteal

audit: $(STAMP)
	$(VENV)/bin/dpquant audit --all --out reports

lint: $(STAMP)
	$(VENV)/bin/ruff check reference audit dpquant tests proofs_checks benchmarks conftest.py docs/hooks.py

# every paper's benchmark and the peers (minutes); the auditor's are `make bench-audit`
bench: $(STAMP)
	$(PY) benchmarks/bench_exponential_mechanism.py
	$(PY) benchmarks/bench_aamand25.py
	$(PY) benchmarks/bench_imola25.py
	$(PY) benchmarks/bench_fukuchi19.py
	$(PY) benchmarks/bench_tzamos20.py
	$(PY) benchmarks/bench_validation.py
	$(PY) benchmarks/bench_peers.py

bench-audit: $(STAMP)
	$(PY) benchmarks/bench_audit.py

claims: $(STAMP)
	$(VENV)/bin/dpquant claims

# the documentation site (mkdocs.yml, sources in docs/) into build/docs; --strict: a broken link,
# a missing reference or a docstring mkdocstrings cannot read fails the build
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# the site's tests with a browser: installs Debian's chromium and chromium-driver when missing
# (about a minute, so `make test` does not: its browser test skips without them; notes/docs.md)
docs-test: $(STAMP)
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium chromium-driver; \
	fi
	$(PY) -m pytest -q -n $(WORKERS) tests/docs

clean:
	rm -rf $(VENV) reports build/docs .pytest_cache .hypothesis
