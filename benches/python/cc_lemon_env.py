"""CC Lemon as a plain Python environment, the way the seed article builds one (a player class,
an environment with reset/step, a win table), driven by two uniform random players.

Used only to compare speeds: `python3 benches/python/cc_lemon_env.py GAMES SEED` prints one JSON
line with the games played, the outcome counts and games/s. The rules are those of
rules/cc_lemon.kmt: charge +1; beam costs 1 and beats a charging opponent; guard stops a beam;
the special beam costs 5, pierces the guard and beats everything but another special beam. A
player picks uniformly among the commands it can afford; 1000 turns is a draw.
"""
import json
import random
import sys
import time

CHARGE, BEAM, SPECIAL, GUARD = 0, 1, 2, 3
NAMES = {CHARGE: "チャージ", BEAM: "ビーム", SPECIAL: "スペシウム光線", GUARD: "ガード"}
SPECIAL_COST = 5
TURN_LIMIT = 1000


class Fighter:
    """One player: its charge and the name of its last action (as the article keeps them)."""

    def __init__(self, name):
        self.name = name
        self.charge = 0
        self.last_action = None

    def charge_up(self):
        self.charge += 1
        self.last_action = "チャージ"

    def beam(self, target):
        if self.charge >= 1:
            self.charge -= 1
            self.last_action = "ビーム"

    def special(self, target):
        if self.charge >= SPECIAL_COST:
            self.charge -= SPECIAL_COST
            self.last_action = "スペシウム光線"

    def guard(self):
        self.last_action = "ガード"

    def options(self):
        out = [CHARGE, GUARD]
        if self.charge >= 1:
            out.append(BEAM)
        if self.charge >= SPECIAL_COST:
            out.append(SPECIAL)
        return out


class Env:
    """reset() / step(a1, a2) -> (state, reward for player 1, done)."""

    def __init__(self):
        self.p1 = Fighter("Player 1")
        self.p2 = Fighter("Player 2")

    def reset(self):
        for f in (self.p1, self.p2):
            f.charge = 0
            f.last_action = None
        return self.state()

    def state(self):
        return (self.p1.charge, self.p2.charge)

    def step(self, a1, a2):
        self._act(self.p1, a1, self.p2)
        self._act(self.p2, a2, self.p1)
        r = self._winner(self.p1.last_action, self.p2.last_action)
        return self.state(), r, r != 0

    def _act(self, player, action, opponent):
        if action == CHARGE:
            player.charge_up()
        elif action == BEAM:
            player.beam(opponent)
        elif action == SPECIAL:
            player.special(opponent)
        elif action == GUARD:
            player.guard()

    def _winner(self, x, y):
        """1 if player 1 wins, -1 if player 2 wins, 0 to go on.

        As in the article, the two last actions are compared as names, pair by pair through
        the whole 4x4 table (an if/elif chain over the sixteen pairs), not by a shortcut.
        """
        if x == "チャージ" and y == "チャージ":
            return 0
        elif x == "チャージ" and y == "ビーム":
            return -1
        elif x == "チャージ" and y == "スペシウム光線":
            return -1
        elif x == "チャージ" and y == "ガード":
            return 0
        elif x == "ビーム" and y == "チャージ":
            return 1
        elif x == "ビーム" and y == "ビーム":
            return 0
        elif x == "ビーム" and y == "スペシウム光線":
            return -1
        elif x == "ビーム" and y == "ガード":
            return 0
        elif x == "スペシウム光線" and y == "チャージ":
            return 1
        elif x == "スペシウム光線" and y == "ビーム":
            return 1
        elif x == "スペシウム光線" and y == "スペシウム光線":
            return 0
        elif x == "スペシウム光線" and y == "ガード":
            return 1
        elif x == "ガード" and y == "チャージ":
            return 0
        elif x == "ガード" and y == "ビーム":
            return 0
        elif x == "ガード" and y == "スペシウム光線":
            return -1
        elif x == "ガード" and y == "ガード":
            return 0
        return 0


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    env = Env()
    wins = [0, 0]
    draws = 0
    turns = 0
    t0 = time.perf_counter()
    for _ in range(games):
        env.reset()
        for t in range(TURN_LIMIT):
            a1 = rng.choice(env.p1.options())
            a2 = rng.choice(env.p2.options())
            _, r, done = env.step(a1, a2)
            if done:
                wins[0 if r == 1 else 1] += 1
                turns += t + 1
                break
        else:
            draws += 1
            turns += TURN_LIMIT
    secs = time.perf_counter() - t0
    print(json.dumps({"games": games, "h_wins": wins[0], "c_wins": wins[1], "draws": draws,
                      "mean_turns": turns / games, "seconds": secs,
                      "games_per_second": games / secs}))


if __name__ == "__main__":
    main()
