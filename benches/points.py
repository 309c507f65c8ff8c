"""Points of player A against player B in `kumite arena`, seats swapped: A as h over N games
(seed 1), then A as c over N games (seed 2); a win is 1, a draw ½. Prints one line: the score,
each seating's record, and both players' thinking time a move where they search.

    python3 benches/points.py KUMITE FILE A B N
"""

import json
import subprocess
import sys

k, f, a, b, n = sys.argv[1:6]


def run(h, c, seed):
    out = subprocess.run([k, "arena", f, "--h", h, "--c", c, "--games", n, "--seed", str(seed),
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def ms(*stats):
    stats = [s for s in stats if s]
    if not stats:
        return "-"
    return f'{1000 * sum(s["seconds"] for s in stats) / sum(s["moves"] for s in stats):.2f} ms'


x = run(a, b, 1)
y = run(b, a, 2)
pts = x["h_wins"] + y["c_wins"] + 0.5 * (x["draws"] + y["draws"])
total = x["games"] + y["games"]
print(f"  {a:<14} vs {b:<14} {pts:g}/{total} = {100 * pts / total:5.1f}% "
      f"(as h {x['h_wins']}-{x['draws']}-{x['c_wins']}, as c {y['c_wins']}-{y['draws']}-{y['h_wins']}); "
      f"a move: {ms(x['search']['h'], y['search']['c'])} against {ms(x['search']['c'], y['search']['h'])}",
      flush=True)
