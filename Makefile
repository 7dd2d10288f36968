# The two commands of the README, and a few more. Everything builds out of tree in build/.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: run test test-asan bench bench-scale validate deps build clean fuzz goldens lint lint-changed agreement

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# Builds Release and runs the bundled default scenario.
run: build
	@$(BUILD)/weft run

# Builds and runs every test (unit, validation, e2e).
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Rewrites the golden outputs of tests/golden (GOLDEN=PATTERN for some): an intended change of a printed
# number updates its golden in the same commit, with the reason in the message.
goldens: build
	@tests/golden/record.sh $(BUILD)/weft . $(GOLDEN)

# clang-format, size limits (files <= 400 lines, functions <= 60) and clang-tidy over every folder;
# findings that predate the check are in scripts/lint-baseline.txt, which only shrinks.
lint: build
	@scripts/lint $(BUILD) --record-clean

# CI's short form of lint: formatting and sizes over every file, clang-tidy over the translation units
# changed (or including a header changed) since the commit in scripts/lint-clean-at, which the full
# `make lint` records when it passes on a clean work tree.
lint-changed: build
	@scripts/lint $(BUILD) --since-clean

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer, less the `slow` label and the
# goldens (byte comparisons of the outputs that `make test` makes; the same scenarios run under the
# sanitizers in e2e.examples and e2e.cli).
test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWEFT_SANITIZE=ON -DWEFT_BENCH=OFF -DWEFT_PYTHON=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'slow|golden'

# Predictions against published nccl-tests measurements (../shared/validation): median signed and
# |error| per system and size band, each band against issue 17's target, the coverage and every row not
# described with its reason (bench/validation_rows.cpp says how each system is described); rows with
# predictions in build/validate_collectives.csv. Then training steps against
# published runs (Megatron-LM SC21, NeMo Llama 3.1 on DGX H100, MosaicML llm-foundry MPT on A100): error
# per row, the median signed and absolute error per family, rows in
# build/validate_training.csv (rows over --max-gpus, default 512, are skipped and listed). Then, for the
# same rows up to 128 GPUs, the plan weft's search picks against the published plan in weft's own
# prediction (issue 18, item 4; rows in build/validate_plans.csv; ~20 min: the searches of the 256-
# and 512-GPU rows take 6 to 24 min each on 2 cores, `--max-gpus 512` adds them). Then LLM
# serving against published TensorRT-LLM, vLLM, SGLang, gpt-fast and llama.cpp measurements
# (bench/serving/validation.csv, sources in bench/serving/SOURCES.md): per row the throughput and
# median latencies with the error, the median |error| of each against issue 20's targets, the rows
# not described and why; rows in build/validate_serving.csv.
validate: build
	@$(BUILD)/bench/weft_validate_collectives ../shared/validation/collectives.csv $(BUILD)/validate_collectives.csv
	@$(BUILD)/bench/weft_validate_training ../shared/validation/training.csv $(BUILD)/validate_training.csv
	@$(BUILD)/bench/weft_validate_plans ../shared/validation/training.csv $(BUILD)/validate_plans.csv --max-gpus 128
	@$(BUILD)/bench/weft_validate_serving bench/serving/validation.csv $(BUILD)/validate_serving.csv

# The fabric models against each other on an idle cluster, the whole matrix (make test runs the short
# form): every preset at 1, 2 and 4 nodes, every algorithm/protocol, four operations, 1 MiB to 1 GiB;
# packet within 5 % of flow, simgrid within 1 %, analytic never slower. Rows in build/agreement.csv.
agreement: build
	@tests/agreement/agreement.py $(BUILD)/weft --full --jobs $(JOBS) --csv $(BUILD)/agreement.csv

# Speed figures (not tests): engine and solver micro-benchmarks, ring all-reduce at scale, SimGrid side by
# side (hand-written and as a fabric), building and routing a 16,384-GPU rail-optimised fabric, a training
# step at 1,024 GPUs (whole and one replica), the plan search (the bundled scenario, and Llama 3 70B on
# 1,024 H100: minutes).
bench: build
	@$(BUILD)/bench/weft_micro_bench
	@for n in 512 2048; do $(BUILD)/bench/weft_ring_scale $$n; done
	@for n in 64 512; do $(BUILD)/bench/weft_vs_simgrid $$n; done
	@for f in flow simgrid; do $(BUILD)/bench/weft_fabric_vs_simgrid 512 $$f; done
	@$(BUILD)/bench/weft_topology_scale
	@$(BUILD)/bench/weft_training_scale 8
	@$(BUILD)/bench/weft_plan_search_speed
	@$(BUILD)/bench/weft_plan_search_speed scenarios/examples/dgx-h100-pod-llama3-70b.yaml system.nodes=128
	@$(BUILD)/bench/weft_trace_read_speed 200
	@if [ -x $(BUILD)/bench/weft_incast_vs_ns3 ]; then $(BUILD)/bench/weft_incast_vs_ns3 packet; \
	 else $(BUILD)/bench/weft_packet_incast packet; fi

# Issue 19's scale figures next to their targets, in one run (bench/scale; CAP seconds per figure,
# QUICK=1 leaves out the 16,384-rank figures): long, a benchmark, never a test.
CAP ?= 300
bench-scale: build
	@bench/scale --build $(BUILD) --cap $(CAP) $(if $(QUICK),--quick)

# libFuzzer on the trace readers and the scenario loader (clang-14): FUZZ_SECONDS per target.
fuzz: deps
	@scripts/fuzz

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
