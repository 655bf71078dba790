# The two commands of the README. Both install what is missing first (the torch venv, see
# scripts/torch-env.sh; for the tests also the S3 test server, scripts/s3-server.sh), then
# build with cargo.
SHELL := /bin/bash
TORCH_ENV := source scripts/torch-env.sh

.PHONY: run test bench

## The main job (see the README).
run:
	$(TORCH_ENV) && cargo build --release --locked && scripts/main-job.sh target/release/gipfzero

## Every test of the workspace, the binary's smoke tests included. The object-store tests
## start a local S3 server: scripts/s3-server.sh installs it first (once per user).
test:
	$(TORCH_ENV) && scripts/s3-server.sh install >/dev/null && cargo test --workspace --locked

## The criterion benchmarks (figures go to docs/PERFORMANCE.md).
bench:
	$(TORCH_ENV) && cargo bench --workspace --locked
