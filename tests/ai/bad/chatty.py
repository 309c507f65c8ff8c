# Answers its first turn with three lines, then never answers again: the two extra lines must
# be named as a protocol error, not played as the answers to turns 2 and 3. The three lines go
# out in one write, as a program that prints and flushes once would send them.
import json, sys
print("chatty", flush=True)
answered = False
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "turn" and not answered:
        answered = True
        sys.stdout.write((msg["commands"][0] + "\n") * 3)
        sys.stdout.flush()
