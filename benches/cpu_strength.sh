#!/usr/bin/env bash
# The CPU's strength, measured side by side with the CPU before the local game graph
# (`cpu:matrix`) in one run. Prints:
#   1. exploitability — what a best reply gains against the CPU as c (`solve --value --against`),
#      at the levels S1, S2, S3 (the default) and S5 — the local graph's budget, 256, 512, 1,024
#      and 4,096 positions (the same on any machine while the period P does not run out first) — then `cpu:exact`, `cpu:matrix` and random;
#   2. head to head — points of the first player (win 1, draw ½) over GAMES games with seats
#      swapped (GAMES/2 each way): the default against a quarter of its budget (S1), S5 against
#      S1, the CPU against `cpu:matrix` at the same time per move;
#   3. against random, with `cpu:exact` beside it where its table fits.
# Usage: benches/cpu_strength.sh [GAMES] [FILE…]   (default 400 games; CC Lemon, Oshi-Zumo and
# the fencing duel). Node budgets (N…) make every figure replay exactly on any machine.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-400}
shift || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(rules/cc_lemon.kmt tests/designs/oshi_zumo.kmt tests/designs/fencing.kmt)
fi
cargo build --release --quiet
k=./target/release/kumite
half=$((games / 2))

# Points of player A against B: A as h over half the games, then A as c (seeds differ).
points() { # file A B
  python3 benches/points.py "$k" "$1" "$2" "$3" "$half"
}

exploit() { # file player
  local t0 t1 line
  t0=$(date +%s.%N)
  line=$($k solve "$1" --value --depth 1 --against "$2" | grep '^against' || true)
  t1=$(date +%s.%N)
  python3 -c "import sys; print(f'  {sys.argv[1]:<22} {sys.argv[2]}  ({float(sys.argv[4]) - float(sys.argv[3]):.1f} s)')" \
    "$2" "${line#*: }" "$t0" "$t1"
}

for f in "${files[@]}"; do
  echo "=== $f"
  if $k solve "$f" --value --depth 1 --format json | python3 -c 'import json,sys; v=json.load(sys.stdin); sys.exit(0 if v.get("value") is not None and v.get("converged") else 1)'; then
    echo "exploitability (a best reply's gain against the player as c; 0 = unexploitable):"
    for p in cpu:S1 cpu:S2 cpu cpu:S5 cpu:exact cpu:matrix random; do exploit "$f" "$p"; done
  fi
  echo "head to head, $games games, seats swapped:"
  points "$f" cpu cpu:S1
  points "$f" cpu:S5 cpu:S1
  points "$f" cpu:P100 cpu:matrix,P100
  echo "against random, $games games, seats swapped:"
  points "$f" cpu random
  points "$f" cpu:exact random
done
