#!/bin/bash
# Does this checkout play exactly as commit BASE did? For refactors that must not change behaviour.
#   bash bench/same_behaviour.sh BASE            e.g. bash bench/same_behaviour.sh 69d0e70
# Runs the same deterministic in-process events (classic with duplicate deals, five-handed, call-ace
# with the joker; each also with --until-settled) with a fixed deal key on BASE (a temporary worktree)
# and on this checkout, then compares every listing, a replay, the report and the stored games, hands,
# faults and entrants. Only output paths, each game's wall time and decision latencies may differ.
# Exit 0: the same behaviour.
set -euo pipefail
base=${1:?usage: same_behaviour.sh BASE-COMMIT}
here=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$here/.venv/bin/python}
work=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$here" worktree add -q --detach "$work/base" "$base"
key=$(printf 'ab%.0s' {1..32})

for variant in classic five-handed call-ace; do
  {
    echo "name = \"same-$variant\""
    echo "seed = 11"
    echo "rounds = 6"
    [ "$variant" = classic ] && echo "duplicate = true"
    echo "[game]"
    echo "variant = \"$variant\""
    [ "$variant" = call-ace ] && echo "use_joker = true"
    for i in 1 2 3; do
      printf '[[entrant]]\nname = "rules-%s"\nclass = "sample_bots.rules:RulesBot"\n' "$i"
      printf '[[entrant]]\nname = "random-%s"\nclass = "sample_bots.random:RandomBot"\n' "$i"
    done
  } > "$work/$variant.toml"
done

play() {  # play SOURCE-TREE OUTPUT-DIR
  local src=$1 out=$2
  mkdir -p "$out"
  for v in classic five-handed call-ace; do
    (cd "$src" && PYTHONPATH=$src "$py" -m arena run "$work/$v.toml" --deal-key "$key" --output "$out/$v") > "$out/$v.run" 2>&1 || echo "exit $?" >> "$out/$v.run"
    (cd "$src" && PYTHONPATH=$src "$py" -m arena run "$work/$v.toml" --deal-key "$key" --output "$out/$v-settled" --until-settled) > "$out/$v.settled" 2>&1 || echo "exit $?" >> "$out/$v.settled"
    for cmd in leaderboard games; do (cd "$src" && PYTHONPATH=$src "$py" -m arena $cmd "$out/$v") > "$out/$v.$cmd" 2>&1 || true; done
    (cd "$src" && PYTHONPATH=$src "$py" -m arena replay "$out/$v" 3) > "$out/$v.replay" 2>&1 || true
    for table in games hands faults entrants; do
      sqlite3 "$out/$v/event.sqlite" "SELECT * FROM $table"
    done > "$out/$v.tables"
    # the page with its packed replays unpacked, less each decision's time (measured, not played)
    "$py" -c '
import base64, gzip, json, re, sys
html = open(sys.argv[1]).read()
m = re.search(r"id=\"replay-data\">([^<]*)<", html)
games = json.loads(gzip.decompress(base64.b64decode(m.group(1)))) if m else {}
for g in games.get("games", []):
    g.pop("times", None)
print(html.replace(m.group(1), "") if m else html, json.dumps(games, indent=0), sep="\n")
' "$out/$v/report.html" | tr '>' '\n' > "$out/$v.report"
  done
}

play "$work/base" "$work/before"
play "$here" "$work/after"
# Wall time per game (the tables' last column) and decision latencies (the report's) are measured, not played.
normal() {
  sed -E "s#$work/(before|after)##g; s/\|[0-9.]+\$//; s/ +\$//" "$1" |
    sed -E 's/"latency_p[0-9]+_ms": [0-9.e-]+//g; s/((&lt;|<)0\.1|[0-9.]+) ms \/ ((&lt;|<)0\.1|[0-9.]+) ms//g'
}
status=0
for f in "$work"/before/*.*; do
  name=$(basename "$f")
  if cmp -s <(normal "$f") <(normal "$work/after/$name"); then
    echo "same     $name"
  else
    echo "DIFFERS  $name"; diff <(normal "$f") <(normal "$work/after/$name") | head -20 || true; status=1
  fi
done
exit $status
