#!/usr/bin/env bash
# The alternate CPU's depth ladder ("levels still scale from weak to strong"): each
# level against the one below it, and the default against random, in the bundled alternate
# fights; then the learned evaluation (`kumite train FILE`, 10,000 self-play games, written next
# to the file) — `cpu:trained` against the default at the same depth, against S4, and against
# random. Prints the first player's points (win 1, draw ½) over GAMES games with seats swapped
# (GAMES/2 each way) and both players' thinking time a move, so strength can be read against
# time. Mistakes are off (E0) so the ladder measures the search alone.
# Usage: benches/alternate_ladder.sh [GAMES] [FILE…]   (default 400 games; karate, sumo and
# moge_battle)
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-400}
shift || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(rules/karate.kmt rules/sumo.kmt rules/moge_battle.kmt)
fi
cargo build --release --quiet
k=./target/release/kumite
half=$((games / 2))

points() { # file A B
  python3 benches/points.py "$k" "$1" "$2" "$3" "$half"
}

for f in "${files[@]}"; do
  echo "=== $f ($games games a pairing, seats swapped)"
  points "$f" cpu:S2,E0 cpu:S1,E0
  points "$f" cpu:S3,E0 cpu:S2,E0
  points "$f" cpu:S4,E0 cpu:S3,E0
  points "$f" cpu:S5,E0 cpu:S4,E0
  points "$f" cpu random
  $k train "$f" | sed 's/^/  /'
  points "$f" cpu:trained,E0 cpu:E0
  points "$f" cpu:trained,E0 cpu:S4,E0
  points "$f" cpu:trained random
done
