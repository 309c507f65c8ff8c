#!/usr/bin/env bash
# The Python package's speed: installs the release build of python/ with pip
# (maturin), then runs benches/python_bench.py. Needs numpy; open_spiel for the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet ./python
python3 benches/python_bench.py
