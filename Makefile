# The two commands of the README. Both install what is missing first (the torch venv, see
# scripts/torch-env.sh), then build with cargo.
SHELL := /bin/bash
TORCH_ENV := source scripts/torch-env.sh

.PHONY: run test bench

## The main job (see the README).
run:
	$(TORCH_ENV) && cargo build --release --locked && scripts/main-job.sh target/release/gipfzero

## Every test of the workspace, the binary's smoke tests included.
test:
	$(TORCH_ENV) && cargo test --workspace --locked

## The criterion benchmarks (figures go to docs/PERFORMANCE.md).
bench:
	$(TORCH_ENV) && cargo bench --workspace --locked
