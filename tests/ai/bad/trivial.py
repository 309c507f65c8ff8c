import sys
print("first-command", flush=True)
out = sys.stdout
for line in sys.stdin:
    if line.startswith('{"type":"turn"'):
        # The commands list comes after "commands":[ — take the first name without parsing JSON.
        i = line.index('"commands":["') + 13
        out.write(line[i:line.index('"', i)] + "\n")
        out.flush()
