#!/usr/bin/env bash
# Builds PrimaDvonna (Maks Verver's DVONN player, winner of CodeCup 2011) from a clone of its
# sources, outside this repository, so `gipfzero match` can play against it.
#
# Usage: scripts/primadvonna.sh PATH_OF_A_CLONE
#
# Get the sources yourself (this script downloads nothing):
#   git clone https://github.com/maksverver/PrimaDvonna
# The player is built, in a copy of the clone, into
#   ${GIPFZERO_PRIMADVONNA:-${XDG_CACHE_HOME:-$HOME/.cache}/gipfzero/primadvonna}/player
# and that path is printed last. Its code is not ours and is never copied into this repository.
#
# The flags are those of its CodeCup submission (tools/compile.pl in its Makefile: fixed
# parameters, no assertions, Zobrist hashing) with -O2, built for the host (its Makefile asks
# for -m32, which needs a 32-bit C library most machines lack; the 64-bit build plays the same).
# The player takes --seed=N (0: seeded from the clock) and --time=SECONDS for the whole game
# (default 4.95); with no --color it speaks the CodeCup protocol on stdin/stdout. A match:
#   gipfzero match --player1 'gipfzero engine --codecup --agent model:dvonn --seed {seed}' \
#       --player2 "$HOME/.cache/gipfzero/primadvonna/player --seed={seed}" --games 10
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/player.c" ] || [ ! -f "$1/Makefile" ]; then
    echo "usage: $0 PATH_OF_A_PRIMADVONNA_CLONE (git clone https://github.com/maksverver/PrimaDvonna)" >&2
    exit 2
fi
source_dir=$(cd "$1" && pwd)
out=${GIPFZERO_PRIMADVONNA:-${XDG_CACHE_HOME:-$HOME/.cache}/gipfzero/primadvonna}
mkdir -p "$out/src"
# Build in a copy, so the clone stays as it was.
cp "$source_dir"/*.c "$source_dir"/*.h "$source_dir"/Makefile "$out/src/"
if [ -d "$source_dir/.git" ]; then
    git -C "$source_dir" rev-parse HEAD > "$out/COMMIT" 2>/dev/null || true
fi
make -C "$out/src" --no-print-directory clean >/dev/null
make -C "$out/src" --no-print-directory player \
    CFLAGS="-O2 -Wall -DFIXED_PARAMS -DNDEBUG -DZOBRIST" LDFLAGS="" >&2
cp "$out/src/player" "$out/player"
echo "$out/player"
