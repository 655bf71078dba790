#!/usr/bin/env bash
# The GPU check (issue 21): what a CUDA machine does with this build, in one run of under 8
# minutes, ending in one table. Run it whenever a CUDA machine is at hand and put the table in
# docs/PERFORMANCE.md ("GPU").
#
#   scripts/gpu-check.sh [BINARY] [OUT_DIR]
#
# BINARY is a release build (default target/release/gipfzero); on a machine with another
# torch 2.11.0 install, run it with LD_LIBRARY_PATH=<that torch>/lib. OUT_DIR (default $OUT,
# else a temporary folder) receives every command's output and table.txt.
#
# What it runs, each step under its own time limit so that one slow step cannot eat the rest:
# 1. `gipfzero info` (libtorch, CUDA, cuDNN);
# 2. `bench model` on the GPU-sized network of configs/zertz.yaml: the forward pass at batch
#    1…512, on 2, 4 and 8 threads at once, and through the inference server, in f32 and bf16,
#    each bare figure also replayed as CUDA graphs (`--cuda-graphs`), with how far the graphs'
#    answers are from plain passes';
# 3. `bench selfplay` with that network on the device: self-play at 128 and 512 games in
#    flight (32 simulations), batches waiting for every worker, with plain passes and with
#    CUDA graphs, against the bare forward pass (run the same way) at the batch it reached;
# 4. two iterations of configs/zertz.yaml (self-play, SGD, checkpoints) from scratch, then one
#    with 4 times the games in flight and per generation (a pass costs about the same at 512
#    as at 128 on an H200) and `threads.cuda_graphs: true`;
# 5. `bench selfplay` with the network and games in flight of each other shipped GPU config
#    (dvonn, lyngk, zertz-blitz, zertz-tournament), at 32 simulations so that one wave of
#    games ends in seconds: positions evaluated per second, which a config's own simulations
#    divide into positions written per second.
#
# GIPFZERO_CHECK_DEVICE=cpu GIPFZERO_CHECK_QUICK=1 runs the same steps on the CPU with small
# settings (the test suite does, so that the script stays runnable between GPU sessions).
set -uo pipefail
bin=${1:-target/release/gipfzero}
out=${2:-${OUT:-$(mktemp -d)}}
device=${GIPFZERO_CHECK_DEVICE:-cuda}
quick=${GIPFZERO_CHECK_QUICK:-0}
mkdir -p "$out"
cd "$(dirname "$0")/.."

if [ "$quick" = 1 ]; then
    config=configs/quick.yaml seconds=0.05 in_flight="8 16" simulations=4 iterations=1 limit=60
    replicas=2
    others="dvonn" other_in_flight=4 other_simulations=2
else
    config=configs/zertz.yaml seconds=1 in_flight="128 512" simulations=32 iterations=2 limit=0
    replicas=2,4,8
    others="dvonn lyngk zertz-blitz zertz-tournament" other_in_flight=128 other_simulations=32
fi
# A step's time limit: `limit` when set (quick mode), else the step's own.
within() { local seconds=$1; shift; [ "$limit" != 0 ] && seconds=$limit; timeout "$seconds" "$@"; }
status=0
step() { # name, seconds, command…
    local name=$1 seconds=$2; shift 2
    echo "== $name" >&2
    within "$seconds" "$@" > "$out/$name.txt" 2>&1
    local rc=$?
    [ $rc = 0 ] || { echo "   $name failed (exit $rc): see $out/$name.txt" >&2; status=1; }
    cat "$out/$name.txt" >&2
}

step info 30 "$bin" info
for precision in f32 bf16; do
    step "model-$precision" 90 "$bin" bench model zertz --config "$config" --device "$device" \
        --precision "$precision" --seconds "$seconds" --replicas "$replicas" --cuda-graphs
done
for games in $in_flight; do
    for passes in plain graphs; do
        graphs=
        [ "$passes" = graphs ] && graphs=--cuda-graphs
        # shellcheck disable=SC2086 # $graphs is empty or one word
        step "selfplay-$games-$passes" 60 "$bin" bench selfplay zertz --config "$config" --device "$device" \
            --in-flight "$games" --games $((games * 2)) --simulations "$simulations" $graphs
    done
done
run_dir="$out/zertz-run"
rm -rf "$run_dir"
step train 150 "$bin" train "$config" --run-dir "$run_dir" --iterations "$iterations"
# The same config with 4 times the games in flight and per generation (self_play's keys of
# the resolved config), its passes replayed as CUDA graphs.
wide="$out/wide.yaml" wide_dir="$out/wide-run"
rm -rf "$wide_dir"
"$bin" train "$config" --print-config | awk '
    /^[a-z_]+:/ { in_self_play = ($1 == "self_play:") }
    in_self_play && ($1 == "parallel_games:" || $1 == "games_per_iteration:") { print "  " $1 " " $2 * 4; next }
    $1 == "cuda_graphs:" { print "  cuda_graphs: true"; next }
    { print }' > "$wide"
step train-wide 120 "$bin" train "$wide" --run-dir "$wide_dir" --iterations 1
for name in $others; do
    game=${name%%-*} variant=
    [ "$game" = "$name" ] || variant="--variant ${name#*-}"
    # shellcheck disable=SC2086 # $variant is empty or two words
    step "config-$name" 45 "$bin" bench selfplay "$game" $variant --config "configs/$name.yaml" \
        --device "$device" --in-flight "$other_in_flight" --games "$other_in_flight" \
        --simulations "$other_simulations"
done

# One table: every figure with the step it came from.
{
    echo "gpu-check $(date -u +%Y-%m-%dT%H:%MZ), device $device, config $config"
    grep -h -E "^(libtorch|cuda|device)" "$out/info.txt" 2>/dev/null
    for precision in f32 bf16; do
        grep -h -E "bare forward|cuda graphs|server" "$out/model-$precision.txt" 2>/dev/null | sed "s/^/$precision  /"
    done
    for games in $in_flight; do
        for passes in plain graphs; do
            grep -h -E "^(self-play|bare forward)" "$out/selfplay-$games-$passes.txt" 2>/dev/null |
                sed "s/^/in flight $games, $passes  /"
        done
    done
    for run in "train:$run_dir" "train-wide:$wide_dir"; do
        name=${run%%:*} dir=${run#*:}
        if [ -f "$dir/metrics.jsonl" ]; then
            python3 - "$dir/metrics.jsonl" "$name" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    sp, tr = m["self_play"], m.get("training") or {}
    print(f"{sys.argv[2]} iteration {m['iteration']}: self-play {sp['games']} games, {sp['positions']} positions in {sp['seconds']:.1f} s "
          f"({sp['positions_per_second']:.0f}/s), SGD {tr.get('steps', 0)} steps in {tr.get('seconds', 0):.1f} s, "
          f"elapsed {m['elapsed_s']:.1f} s, cpu {m.get('cpu_s') or 0:.0f} s")
PY
        else
            echo "$name: no metrics (see $out/$name.txt)"
        fi
    done
    for name in $others; do
        grep -h -E "^(self-play|bare forward)" "$out/config-$name.txt" 2>/dev/null | sed "s/^/$name  /"
    done
} | tee "$out/table.txt"
exit $status
