import json, sys, time
print("slow", flush=True)
for line in sys.stdin:
    if json.loads(line)["type"] == "turn":
        time.sleep(3)
        print(json.loads(line)["commands"][0], flush=True)
