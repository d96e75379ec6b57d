# Set-up is two commands: `make demo` and `make test`. Both create the venv and
# install what they need on first use (system packages only when run as root).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SYSTEM_STAMP := .ci/.system-packages-done
DEMO_ARGS ?=

.PHONY: demo test test-fast test-isolated lint fmt dashboards golden bench bench-ndbsim up down load image clean system-packages tools clients

# The exporter and, beside it, the distributions of ndbsim, the process harness, the load
# generator and the dashboards.
DISTRIBUTIONS := pyproject.toml simulator/pyproject.toml harness/pyproject.toml loadgen/pyproject.toml dashboards/pyproject.toml

$(STAMP): $(DISTRIBUTIONS)
	@bash .ci/venv $(PYTHON) $(VENV)
	@touch $(STAMP)

system-packages:
	@bash .ci/system-packages

# Go-built test tools (.ci/go-tools.txt, .ci/go-module-tools.txt), cached in .tools/bin.
tools:
	@bash .ci/go-tools

# The MySQL drivers of the client tests (tests/clients/), cached in .tools/clients.
clients:
	@bash .ci/client-drivers

# ndbsim and the exporter, and Prometheus and Alertmanager when installed (see docs/view.md).
demo: $(STAMP)
	@$(BIN)/python -m ndb_harness.demo $(DEMO_ARGS)

# Test modules side by side (pytest-xdist), each whole on one worker: most of them wait on
# live stacks (ndbsim, the exporter, Prometheus) more than they compute, so four workers keep
# two cores busy. The modules go in the order tests/conftest.py gives them (the long ones
# first), not pytest-xdist's (the most tests first).
TEST_WORKERS ?= 4

test: $(STAMP) system-packages tools clients
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The fast subset: the tests that start no process (a test that starts one without the
# integration mark fails, tests/conftest.py), on one worker per core.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not integration" -n auto --dist loadfile

# Every test module with integration tests run alone, then the suite in reverse module order:
# a test that passes only after others fails here.
test-isolated: $(STAMP) system-packages tools clients
	@set -e; for module in $$(grep -rl --include='test_*.py' -e 'integration' tests | sort); do \
		echo "== $$module"; $(BIN)/python -m pytest -q -p no:cacheprovider $$module; done
	$(BIN)/python -m pytest -q -p no:cacheprovider --reverse-modules

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

fmt: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

dashboards: $(STAMP)
	$(BIN)/python -m ndb_dashboards.build

# Copy the rules and dashboards into the Helm chart (charts/ndbinfo-exporter/files/).
.PHONY: chart
chart: $(STAMP)
	$(BIN)/python charts/sync.py

# The sample report of docs/report.md (from ndbsim) and docs/report.schema.json.
.PHONY: report-sample
report-sample: $(STAMP)
	$(BIN)/python -m tests.report.report_sample

golden: $(STAMP)
	$(BIN)/python -m pytest tests/collectors/test_golden.py --update-golden

bench: $(STAMP)
	$(BIN)/python bench/scrape.py

bench-ndbsim: $(STAMP)
	$(BIN)/python bench/ndbsim_cost.py

up:
	docker compose up -d --build

down:
	docker compose down -v

load:
	docker compose --profile load run --rm loadgen

image:
	docker build -t ndbinfo-exporter:$(shell $(PYTHON) -c 'import tomllib;print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])') .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .tools
