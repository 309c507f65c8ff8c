#!/usr/bin/env bash
# Side by side on this machine: `kumite arena` (CC Lemon, random vs random, one thread) and the
# Python CC Lemon environment in benches/python, alternately, three rounds. Prints games/s of
# each and the ratio. Usage: benches/arena_vs_python.sh [KUMITE_GAMES] [PYTHON_GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
kg=${1:-4000000}
pg=${2:-500000}
cargo build --release --quiet
for round in 1 2 3; do
  k=$(./target/release/kumite arena rules/cc_lemon.kmt --h random --c random --games "$kg" \
        --jobs 1 --seed "$round" --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["games_per_second"])')
  p=$(python3 benches/python/cc_lemon_env.py "$pg" "$round" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["games_per_second"])')
  python3 -c "print(f'round $round: kumite arena {$k:,.0f} games/s, python {$p:,.0f} games/s, ratio {$k/$p:.1f}x')"
done
