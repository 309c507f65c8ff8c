#!/usr/bin/env bash
# kumite suggest on planted imbalances: bundled and test games with one number
# changed; for each, whether a fix meeting the default goals was found within the 60 s budget,
# with at most 2 edits, how long it took and the evidence; then the same run again with one core
# kept busy, and whether its JSON (time aside) is the same. Usage: benches/suggest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
k=$PWD/target/release/kumite
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# name | file | sed expression planting the imbalance | extra options
cases=(
  "cc_lemon h starts charged|rules/cc_lemon.kmt|s/^!:\[チャージ\],\[ガード\]\$/!:[チャージ],[ガード]\n!:h.チャージ=1/|"
  "cc_lemon c starts charged|rules/cc_lemon.kmt|s/^!:\[チャージ\],\[ガード\]\$/!:[チャージ],[ガード]\n!:c.チャージ=1/|"
  "cc_lemon h starts 2 charged|rules/cc_lemon.kmt|s/^!:\[チャージ\],\[ガード\]\$/!:[チャージ],[ガード]\n!:h.チャージ=2/|"
  "oshi_zumo wrestler one square toward c|tests/designs/oshi_zumo.kmt|s/^!:金=所持金,余裕=初期余裕,/!:金=所持金,h.余裕=5,c.余裕=3,/|--max-draws 1"
  "oshi_zumo h one coin more|tests/designs/oshi_zumo.kmt|s/^!:金=所持金,/!:h.金=10,c.金=9,/|--max-draws 1"
  "sumo as bundled|rules/sumo.kmt||"
  "sumo c stamina 9|rules/sumo.kmt|s/c.スタミナ=10/c.スタミナ=9/|"
  "sumo margin 5|rules/sumo.kmt|s/^!:後ろ余裕度=6/!:後ろ余裕度=5/|"
  "karate c health 30|rules/karate.kmt|s/c.体力=31/c.体力=30/|"
  "wrestling health 19|tests/designs/wrestling.kmt|s/^!:体力=20/!:体力=19/|"
  "ex2_spirit h margin 9|rules/ex2_spirit.kmt|s/^!:h.後ろ余裕度=10/!:h.後ろ余裕度=9/|"
  "moge_battle boss HP 40|rules/moge_battle.kmt||"
  "dice_race no head start|tests/designs/dice_race.kmt|s/^先行:1\$/先行:0/|"
  "boxing h 14 hp against 10|tests/designs/boxing.kmt|s/^!:hp=10,stamina=6\$/!:h.hp=14,c.hp=10,stamina=6/|"
  "sumo h stamina 14|rules/sumo.kmt|s/h.スタミナ=9/h.スタミナ=14/|"
  "marathon h 12 squares ahead|tests/designs/marathon.kmt|s/^ハンデ:0\$/ハンデ:12/|"
  "card_duel h 26 health against 20|tests/designs/card_duel.kmt|s/^!:体力=20,マナ=1,/!:h.体力=26,c.体力=20,マナ=1,/|"
)
found=0
fair=0
same=0
runs=0
for c in "${cases[@]}"; do
  IFS='|' read -r name file expr extra <<<"$c"
  f="$dir/planted.kmt"
  if [ -n "$expr" ]; then sed "$expr" "$file" >"$f"; else cp "$file" "$f"; fi
  if cmp -s "$f" "$file" && [ -n "$expr" ]; then echo "$name: the planting did not apply"; continue; fi
  # shellcheck disable=SC2086
  out=$($k suggest "$f" --format json $extra 2>&1) || { echo "$name: error: $out" | head -3; continue; }
  # The same run with one core kept busy: the same suggestions are expected (time aside).
  ( while :; do :; done ) &
  busy=$!
  # shellcheck disable=SC2086
  loaded=$($k suggest "$f" --format json $extra 2>&1) || true
  kill "$busy"
  wait "$busy" 2>/dev/null || true
  runs=$((runs + 1))
  if python3 -c 'import json,sys; a,b=(json.loads(x) for x in sys.argv[1:]); [d.pop("seconds",None) for d in (a,b)]; sys.exit(a!=b)' "$out" "$loaded" 2>/dev/null; then
    same=$((same + 1))
  else
    echo "$name: DIFFERENT with a core busy"
  fi
  line=$(python3 - "$name" "$out" <<'PY'
import json, sys
name, raw = sys.argv[1], sys.argv[2]
s = json.loads(raw)
b = s["before"]
def ev(v):
    if v["method"] == "sampled":
        return f"h {100*(v['value']+0.5):.1f}%, first mover {100*v['first_mover'][0]:+.1f} pts ({v['games']} games a seating)"
    return f"value {v['value']:+.4f} ({v['method']}, {100*v['draws']:.0f}% without a winner)"
if s["already_met"]:
    print(f"FAIR {name}: already fair — {ev(b)}; {s['seconds']:.1f} s")
elif s["suggestions"]:
    sg = s["suggestions"][0]
    eds = "; ".join(f"line {e['line']}: {e['before_line']} → {e['after_line']}" for e in sg["edits"])
    deep = {True: "deeper CPUs agree", False: "DEEPER CPUs DISAGREE", None: "deeper CPUs: too few games to tell"}[(sg.get("deeper") or {}).get("agrees")] if sg.get("deeper") else "no depth check (exact)"
    plan = f"; plan: {s['plan_note']}" if s.get("plan_note") else ""
    print(f"OK  {name}: {ev(b)} → {ev(sg['after'])} by {eds}; {deep}; {len(s['suggestions'])} found, {s['tried']} tried, {s.get('rejected', 0)} rejected for breaking the design, {s['seconds']:.1f} s{plan}")
else:
    print(f"--  {name}: {ev(b)}: none found; {s['tried']} tried, {s.get('rejected', 0)} rejected for breaking the design, {s['seconds']:.1f} s" + (f"; gave up: {s['gave_up']}" if s.get('gave_up') else "") + (f"; plan: {s['plan_note']}" if s.get('plan_note') else ""))
PY
)
  echo "$line"
  case "$line" in OK*) found=$((found + 1));; FAIR*) fair=$((fair + 1));; esac
done
echo "fixed: $found of $((${#cases[@]} - fair)) unfair files ($fair already fair)"
echo "the same with a core busy: $same of $runs"
