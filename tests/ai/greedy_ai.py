#!/usr/bin/env python3
"""A simple greedy Kumite AI that reads the states (standard library only).

It knows nothing about a particular game except a few common command words; it prefers, in
order: a finishing move it can afford; a beam (it beats a charge and loses nothing against a
guard or a beam); charging when the opponent has nothing to attack with; guarding when it has;
else random. Written for CC Lemon but plays any rule file (it falls back to random).
"""
import json
import random
import sys

FINISHERS = ["スペシウム光線", "投げる", "正拳突き"]


def choose(msg, rng):
    cmds = msg["commands"]
    opp = msg["opponent"]
    opp_charge = opp.get("チャージ", 0)
    for f in FINISHERS:
        if f in cmds:
            return f  # a finishing move it can afford
    if "ビーム" in cmds:
        return "ビーム"  # beats a charge; nothing lost against a guard or a beam
    if opp_charge == 0 and "チャージ" in cmds:
        return "チャージ"  # safe: the opponent cannot attack
    if "ガード" in cmds:
        return "ガード"  # the opponent could beam: guard
    return rng.choice(cmds)


def main():
    rng = random.Random(7)
    print("greedy-py", flush=True)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            rng.seed(msg["seed"])
        elif msg["type"] == "turn":
            print(choose(msg, rng), flush=True)


if __name__ == "__main__":
    main()
