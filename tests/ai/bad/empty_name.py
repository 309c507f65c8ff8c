print("", flush=True)
import sys
sys.stdin.read()
