import json, sys
print("says-nonsense", flush=True)
for line in sys.stdin:
    if json.loads(line)["type"] == "turn":
        print("かめはめ波", flush=True)
