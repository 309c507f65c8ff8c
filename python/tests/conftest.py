"""Shared fixtures: paths of the repository's rule files and the kumite command line."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = sorted((ROOT / "rules").glob("*.kmt"))
DESIGNS = sorted((ROOT / "tests" / "designs").glob("*.kmt"))
ALL_FILES = RULES + DESIGNS


def kumite_bin():
    """The kumite command line: $KUMITE_BIN (set by tests/suite/python.rs), else target/release."""
    b = os.environ.get("KUMITE_BIN") or str(ROOT / "target" / "release" / "kumite")
    return b if os.path.exists(b) else shutil.which("kumite")


@pytest.fixture
def cli():
    b = kumite_bin()
    if not b:
        pytest.skip("the kumite command line is not built")
    return b


def rule(name):
    for p in ALL_FILES:
        if p.name == name:
            return str(p)
    raise FileNotFoundError(name)
