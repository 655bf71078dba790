#!/usr/bin/env bash
# The main job of `make run`: a short real training run on the embedded default config
# (ZÈRTZ standard on the CPU, configs/default.yaml) into data/runs/default. Running it again
# resumes the run where it stopped; a finished run is left as it is.
set -euo pipefail
bin=${1:-target/release/gipfzero}
"$bin" info
echo
"$bin" train
