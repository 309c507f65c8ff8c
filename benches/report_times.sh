#!/usr/bin/env bash
# How long `kumite report` takes with its defaults (the target: at most 30 s for every
# bundled rule file on the 2-core machine), whole and by section, as a user runs it: the
# release binary, one report at a time. Prints a table of seconds.
# Usage: benches/report_times.sh [FILE…]   (default: every rules/*.kmt, then the test designs
# fencing, wrestling and Oshi-Zumo, which are not bundled).
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(rules/*.kmt tests/designs/fencing.kmt tests/designs/wrestling.kmt tests/designs/oshi_zumo.kmt)
fi
cargo build --release --quiet
k=./target/release/kumite
secs() { # command… → wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$t1"
}
printf '%-28s %7s %8s %6s %10s %6s\n' file report outcome exact restricted skill
for f in "${files[@]}"; do
  whole=$(secs "$k" report "$f")
  parts=()
  for s in outcome exact restricted skill; do parts+=("$(secs "$k" report "$f" --sections "$s")"); done
  printf '%-28s %7s %8s %6s %10s %6s\n' "$(basename "$f")" "$whole" "${parts[@]}"
done
echo "(outcome includes its depth check; restricted replays the outcome games as its baseline)"
