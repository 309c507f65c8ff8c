#!/usr/bin/env python3
"""A Kumite AI that picks uniformly among the enabled commands (standard library only).

Protocol: print the name first; then read one JSON object per line. Answer each "turn" with one
line holding a command name (or its key). "start" and "end" need no answer.
"""
import json
import random
import sys


def main():
    rng = random.Random(12345)
    print("random-py", flush=True)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            rng.seed(msg["seed"])
        elif msg["type"] == "turn":
            sys.stdout.write(rng.choice(msg["commands"]) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
