# Gives its name, then never answers a turn.
import sys
print("silent", flush=True)
for line in sys.stdin:
    pass
