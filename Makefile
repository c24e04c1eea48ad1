# Two commands on a fresh machine with only Python and make: `make test` and `make audit`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
WORKERS ?= 2
# Python may write its bytecode here, whatever the shell says: pytest keeps its rewritten test
# modules there, and a run without them spends about 20 s per worker rewriting them again
unexport PYTHONDONTWRITEBYTECODE

.PHONY: test check check-types check-tests durations audit golden lint browser bench bench-audit claims certify docs docs-test clean

# --no-compile: pip byte-compiles every module it installs (28 s of a 58 s install), while the tests
# import a small part of them, compiled on first import (3 s; notes/benchmarks.md)
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e '.[dev,distributed,peers,docs]'
	touch $(STAMP)

# lint, the import contracts of docs/DESIGN.md, the type check, then every test; the browser of
# the site's test (`browser`, below) is installed in the background meanwhile, and the tests wait
# for it (its log: build/browser.log). The type check runs beside one collection of the tests, which
# writes the bytecode of the modules and of the rewritten tests once: the two pytest workers then
# read it instead of each writing it (24 s a worker on a clean clone, 7 s with it; the collection's
# own errors are the real run's to report)
test:
	@mkdir -p build && { $(MAKE) --no-print-directory browser > build/browser.log 2>&1 & \
	  echo $$! > build/browser.pid; }
	$(MAKE) --no-print-directory lint
	$(VENV)/bin/lint-imports
	@echo "$(VENV)/bin/mypy dpquant (beside pytest --collect-only)"; \
	  $(VENV)/bin/mypy dpquant > build/mypy.log 2>&1 & mypy=$$!; \
	  $(PY) -m pytest -q --collect-only > /dev/null 2>&1; \
	  wait $$mypy; status=$$?; cat build/mypy.log; exit $$status
	@while kill -0 "$$(cat build/browser.pid)" 2>/dev/null; do sleep 1; done; cat build/browser.log
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(PY) -m pytest -q -n $(WORKERS) --dist worksteal

# the quick loop for day-to-day work (at most 2 minutes on 2 cores, notes/benchmarks.md): lint,
# the import contracts, then the type check beside every test neither marked slow, audit or
# packaging nor recorded over 0.1 s in tests/durations.json (`pytest --quick`, conftest.py), which
# fails when a package of dpquant had no test of its own run and names the tests that took over
# 2 s. `make test` runs everything.
check: $(STAMP)
	$(MAKE) --no-print-directory lint
	$(VENV)/bin/lint-imports
	$(MAKE) --no-print-directory -j2 check-types check-tests

# every test, as `make test` runs them, recording each test's seconds in tests/durations.json (the
# quick loop's list of slow tests; run it after making tests slower or faster)
durations: $(STAMP)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(PY) -m pytest -q -n $(WORKERS) --dist worksteal \
	  --record-durations tests/durations.json

check-types: $(STAMP)
	$(VENV)/bin/mypy dpquant

check-tests: $(STAMP)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-check} $(PY) -m pytest -q -n $(WORKERS) \
	  --dist worksteal --quick

# the audits run side by side, one process per core (a dask LocalCluster, the `distributed`
# extra): the same reports as in one process (tests/cli/test_cli_cluster.py); about 75 s on two
# cores, 94 s in one process (notes/benchmarks.md, "make audit, issue 39")
audit: $(STAMP)
	$(VENV)/bin/dpquant audit --all --scheduler local --out reports

# the auditor's reports at seed 0 against the golden files of tests/golden (minutes; issue 36)
golden: $(STAMP)
	$(PY) tests/golden/golden_reports.py --check

lint: $(STAMP)
	$(VENV)/bin/ruff check dpquant tests proofs_checks benchmarks conftest.py docs/hooks.py

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

# prove the certified claims again (no write), then the independent checker over the committed
# certificates (notes/certified.md)
certify: $(STAMP)
	$(VENV)/bin/dpquant certify
	$(PY) proofs_checks/certificate_checker.py

# the documentation site (mkdocs.yml, sources in docs/) into build/docs; --strict: a broken link,
# a missing reference or a docstring mkdocstrings cannot read fails the build
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# Debian's chromium and chromium-driver for the site's browser test (tests/docs), when missing
# (about a minute on a fresh machine); where they cannot be installed (no apt-get, neither root nor
# sudo, no network) it says why and the browser test skips with its reason (notes/docs.md)
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then \
	  echo "browser: chromium and chromedriver are installed"; exit 0; fi; \
	if ! command -v apt-get >/dev/null; then \
	  echo "browser: no apt-get: chromium not installed (the browser test skips)"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else \
	  echo "browser: neither root nor sudo: chromium not installed (the browser test skips)"; \
	  exit 0; fi; \
	if timeout 600 $$SUDO apt-get update -q && timeout 600 $$SUDO \
	  env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; then \
	  echo "browser: chromium and chromedriver installed"; else \
	  echo "browser: apt-get failed: chromium not installed (the browser test skips)"; fi

# the site's tests, the browser test included (installs the browser first when missing)
docs-test: $(STAMP) browser
	$(PY) -m pytest -q -n $(WORKERS) tests/docs

clean:
	rm -rf $(VENV) reports build/docs .pytest_cache .hypothesis
