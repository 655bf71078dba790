#!/usr/bin/env bash
# The main job of `make run`: everything that works end to end, in order. The training issue
# turns this into a short real training run on the embedded default config.
set -euo pipefail
bin=${1:-target/release/gipfzero}
"$bin" info
echo
"$bin" bench rules zertz --variant standard --seconds 1
"$bin" bench rules dvonn --seconds 1
"$bin" bench rules lyngk --seconds 1
echo
echo "A random ZÈRTZ game (gipfzero rules random zertz --seed 1):"
"$bin" rules random zertz --seed 1 | tail -n 4
