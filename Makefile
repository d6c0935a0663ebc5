# Two commands matter (see README): `make run` and `make test`; `make check` is the fast lane.
# Both create and use the virtual environment at .venv/ in the repository root.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_APP := $(VENV)/.stamp-app
STAMP_TEST := $(VENV)/.stamp-test
# torch for the benchmark tests: pinned to what the build machines hold (never newer than 2.14.1).
TORCH_PINS := torch==2.14.1 torchvision==0.29.1

.PHONY: run test check lint venv clean screenshots bench-doctor bench-gui i18n qm appimage \
	bench-appimage faults

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_APP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[gui,telemetry]'
	touch $@

$(STAMP_TEST): pyproject.toml $(STAMP_APP)
	$(BIN)/python -m pip install --quiet $(TORCH_PINS)
	$(BIN)/python -m pip install --quiet -e '.[gui,telemetry,test,bench]' $(TORCH_PINS)
	touch $@

venv: $(STAMP_APP)

## Install rocmate into .venv and start it (the machine check in the terminal). It succeeds when
## rocmate ran, whatever the doctor's verdict: `rocmate doctor`'s exit status (1: ready after
## fixes, 4: not supported) is for scripts (scripts/make_run.py).
run: $(STAMP_APP) qm
	$(BIN)/python -m scripts.make_run $(ARGS)

## Install what the tests need into .venv (and, as root, the Debian tools the apt and browser
## tests use), then run lint, types, import contracts, pytest and `make faults`.
test: $(STAMP_TEST) qm appimage
	bash scripts/install-test-system-deps.sh
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest --ignore=tests/faults $(PYTEST_ARGS)
	$(MAKE) --no-print-directory faults

## The fast lane while you work: lint, types, import contracts and the tests that need no root,
## no GPU, no AppImage, no real benchmark worker and no real pip install (those marked slow,
## tests/bench, tests/faults, tests/packaging: `make test` runs them all). Under 4 minutes on
## 2 cores.
check: $(STAMP_TEST) qm
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q --ignore=tests/faults \
		--ignore=tests/packaging --ignore=tests/bench -m "not root and not gpu and not slow" \
		$(PYTEST_ARGS)

## Inject faults and hostile input for real (tests/faults/) and print what was injected,
## survived and lost, what was tried and refused, and the fuzz examples per parser.
FAULTS_LEDGER := build/faults/ledger.json
faults: $(STAMP_TEST)
	bash scripts/install-test-system-deps.sh
	rm -f $(FAULTS_LEDGER)
	# the table is printed even when a test failed (it then counts that test's faults as not
	# survived); make faults fails when either fails
	status=0; ROCMATE_FAULTS_LEDGER=$(FAULTS_LEDGER) QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest tests/faults -q $(FAULTS_ARGS) || status=$$?; \
	$(BIN)/python -m tests.faults.table $(FAULTS_LEDGER) && exit $$status

# (ruff's formatter is not adopted: the code keeps its own hand layout, and a check whose failure
# is ignored checks nothing)
lint: $(STAMP_TEST)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

## Render every page of the app for four recorded machines into docs/screenshots/, and a gemm
## run's graphs and results.
SCREENSHOT_MACHINES := rx6600-ubuntu2404-fresh wsl2-ubuntu2204-rx7900xtx-ready \
	popos2204-rx6800-ready k16b-strix-point-890m-laptop-ubuntu2404
# The benchmark, results, history and compare views show recorded reports: a real CPU run on
# the first machine, real H200 runs on the others (the first report named is the one shown).
R := tests/fixtures/reports
SHOTS_rx6600-ubuntu2404-fresh := $(R)/cpu-tiny-resnet50-train.json \
	$(R)/h200-resnet50-train-amp-bf16-cl-bs256.json
SHOTS_wsl2-ubuntu2204-rx7900xtx-ready := $(R)/gpu/h200-health-resnet50-page.json \
	$(R)/h200-resnet50-train-amp-bf16-cl-bs256.json $(R)/cpu-tiny-resnet50-train.json
SHOTS_popos2204-rx6800-ready := $(R)/h200-sd15-infer-eager-bs1-unsteady.json \
	$(R)/h200-resnet50-train-amp-bf16-cl-bs256.json $(R)/cpu-tiny-resnet50-train.json
# an APU (memory shared with the system) with a failed, a cancelled and a finished run
SHOTS_k16b-strix-point-890m-laptop-ubuntu2404 := tests/report/data/cpu-failed-missing-package.json \
	$(R)/failed/cpu-tiny-resnet50-train-cancelled.json $(R)/cpu-tiny-resnet50-train.json
# a gemm run of three dtypes: its graphs and results, in both languages (docs/screenshots/gemm-cpu)
GEMM_SHOT := tests/report/data/cpu-tiny-gemm.json
# an APU's GPU memory window: the 128 GB Strix Halo of unslothai/unsloth#7960 (docs/screenshots/gpu-memory);
# Apply… carried out for real as root in a throwaway root (tests/gui/memory_apply_shots.py; skipped
# without root)
MEMORY_SHOT := tests/fixtures/machines/k35-strix-halo-128g-gttsize-torch62
# the apps' Python environments on the System check and an app's repair window: ComfyUI's venv on
# a CPU torch family (docs/screenshots/app-repair)
REPAIR_SHOT := tests/fixtures/machines/k34-comfyui-cpu-torch-rx7900xtx
screenshots: $(STAMP_APP) qm
	for lang in en zh_CN; do for m in $(SCREENSHOT_MACHINES); do \
		out=docs/screenshots/app-$$m; [ $$lang = en ] || out=docs/screenshots/$$lang-app-$$m; \
		rm -rf $$out; \
		reports=""; \
		case $$m in \
			rx6600-ubuntu2404-fresh) reports="$(SHOTS_rx6600-ubuntu2404-fresh)";; \
			wsl2-ubuntu2204-rx7900xtx-ready) reports="$(SHOTS_wsl2-ubuntu2204-rx7900xtx-ready)";; \
			popos2204-rx6800-ready) reports="$(SHOTS_popos2204-rx6800-ready)";; \
			k16b-strix-point-890m-laptop-ubuntu2404) \
				reports="$(SHOTS_k16b-strix-point-890m-laptop-ubuntu2404)";; \
		esac; \
		args=""; for r in $$reports; do args="$$args --screenshot-report $$r"; done; \
		QT_QPA_PLATFORM=offscreen $(BIN)/rocmate gui --root tests/fixtures/machines/$$m \
			--lang $$lang --screenshot-dir $$out $$args || exit 1; \
	done; done
	for lang in en zh_CN; do tmp=$$(mktemp -d); \
		QT_QPA_PLATFORM=offscreen $(BIN)/rocmate gui --root \
			tests/fixtures/machines/rx6600-ubuntu2404-fresh --lang $$lang --screenshot-dir $$tmp \
			--screenshot-report $(GEMM_SHOT) || exit 1; \
		cp $$tmp/*-benchmark-graphs.png docs/screenshots/gemm-cpu/$$lang-benchmark-graphs.png; \
		cp $$tmp/*-results.png docs/screenshots/gemm-cpu/$$lang-results.png; rm -rf $$tmp; \
	done
	mkdir -p docs/screenshots/gpu-memory; for lang in en zh_CN; do tmp=$$(mktemp -d); \
		QT_QPA_PLATFORM=offscreen $(BIN)/rocmate gui --root $(MEMORY_SHOT) --lang $$lang \
			--screenshot-dir $$tmp || exit 1; \
		cp $$tmp/*-gpu-memory.png docs/screenshots/gpu-memory/$$lang-strix-halo.png; \
		cp $$tmp/*-gpu-memory-apply.png docs/screenshots/gpu-memory/$$lang-strix-halo-replay-apply.png; \
		rm -rf $$tmp; \
		QT_QPA_PLATFORM=offscreen $(BIN)/python -m tests.gui.memory_apply_shots \
			docs/screenshots/gpu-memory $$lang || exit 1; \
	done
	mkdir -p docs/screenshots/app-repair; for lang in en zh_CN; do tmp=$$(mktemp -d); \
		QT_QPA_PLATFORM=offscreen $(BIN)/rocmate gui --root $(REPAIR_SHOT) --lang $$lang \
			--screenshot-dir $$tmp || exit 1; \
		cp $$tmp/*-system-check.png docs/screenshots/app-repair/$$lang-system-check.png; \
		cp $$tmp/*-repair.png docs/screenshots/app-repair/$$lang-repair.png; \
		rm -rf $$tmp; \
	done
	# the window after a real repair, a rollback and a failed install of a throwaway venv
	mkdir -p /tmp/rocmate-shots; ROCMATE_REPAIR_SHOTS=docs/screenshots/app-repair \
		QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/gui/test_repair_live.py -q \
		-p no:randomly --basetemp=/tmp/rocmate-shots/alice

## Refresh the translation catalogues from the code (new texts come in unfinished; see
## docs/translating.md).
## The catalogues anew from the code: core's words (TOML) and the app's (Qt's .ts).
i18n: $(STAMP_APP)
	$(BIN)/python -m core.i18n_catalogue update zh_CN
	$(BIN)/python -m scripts.qt_catalogue update

## The app's compiled catalogues (.qm, not in git), from the .ts files.
qm: $(STAMP_APP)
	$(BIN)/python -m scripts.qt_catalogue build

## The AppImage, offline and reproducibly: dist/rocmate-x86_64.AppImage (packaging/README.md).
## Rebuilt only when a file it is made from changed.
APPIMAGE := dist/rocmate-x86_64.AppImage
APPIMAGE_VENV := build/appimage-venv
APPIMAGE_INPUTS := $(shell git ls-files core gui resources packaging 2>/dev/null | grep -v '\.ts$$')
$(APPIMAGE_VENV)/.stamp: packaging/requirements.txt
	$(PY) -m venv $(APPIMAGE_VENV)
	$(APPIMAGE_VENV)/bin/python -m pip install --quiet -r packaging/requirements.txt
	touch $@
$(APPIMAGE): $(APPIMAGE_VENV)/.stamp $(APPIMAGE_INPUTS) resources/i18n/rocmate_zh_CN.ts LICENSE
	bash scripts/install-build-system-deps.sh
	$(BIN)/python -m scripts.qt_catalogue build
	$(APPIMAGE_VENV)/bin/python packaging/build_appimage.py --python $(APPIMAGE_VENV)/bin/python
appimage: $(STAMP_APP) $(APPIMAGE)

## Size and start-up time of the AppImage (goals: < 120 MB, window < 2 s from a warm cache).
bench-appimage: appimage
	$(BIN)/python benchmarks/appimage_start.py

bench-gui: $(STAMP_APP)
	$(BIN)/python benchmarks/gui_start.py

bench-doctor: $(STAMP_APP)
	$(BIN)/python benchmarks/doctor_speed.py

clean:
	rm -rf $(VENV) build dist *.egg-info
