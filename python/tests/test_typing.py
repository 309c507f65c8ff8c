"""Typing: the extension's stubs (kumite/_core.pyi) name what the extension has, with the same
parameters, and mypy --strict passes on the package and the examples with them."""

import ast
import inspect
import pathlib
import types

import pytest

import kumite._core as core

PYTHON = pathlib.Path(__file__).resolve().parents[1]
STUB = PYTHON / "kumite" / "_core.pyi"
NO_DEFAULT = inspect.Parameter.empty


def stub_names():
    """The stub's top-level definitions by name (classes, functions, annotated variables)."""
    out = {}
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def public(names):
    return {n for n in names if not n.startswith("_")}


def decorators(fn):
    return {d.id for d in fn.decorator_list if isinstance(d, ast.Name)}


def stub_parameters(fn):
    """(name, default) of a stub function's parameters, without self or cls."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [NO_DEFAULT] * (len(positional) - len(a.defaults)) + [
        ast.literal_eval(d) for d in a.defaults
    ]
    params = list(zip((p.arg for p in positional), defaults))
    params += [
        (p.arg, NO_DEFAULT if d is None else ast.literal_eval(d))
        for p, d in zip(a.kwonlyargs, a.kw_defaults)
    ]
    return [p for p in params if p[0] not in ("self", "cls")]


def runtime_parameters(obj):
    sig = inspect.signature(obj)
    return [(p.name, p.default) for p in sig.parameters.values() if p.name not in ("self", "cls")]


def test_the_stub_names_every_public_name_of_the_extension():
    stub = stub_names()
    assert public(dir(core)) | {"__version__"} == public(stub) | ({"__version__"} & stub.keys())
    for name in public(dir(core)):
        obj = getattr(core, name)
        if not isinstance(obj, type):
            assert runtime_parameters(obj) == stub_parameters(stub[name]), name
            continue
        members = {n.name: n for n in stub[name].body if isinstance(n, ast.FunctionDef)}
        assert public(vars(obj)) == public(members), name
        for m in public(vars(obj)):
            attr = vars(obj)[m]
            kind = decorators(members[m])
            is_property = isinstance(attr, types.GetSetDescriptorType)
            assert is_property == ("property" in kind), f"{name}.{m}: a property in one only"
            assert isinstance(attr, staticmethod) == ("staticmethod" in kind), f"{name}.{m}"
            if not is_property:
                assert runtime_parameters(getattr(obj, m)) == stub_parameters(members[m]), m
        # A class made from Python: the stub's __new__ takes what the constructor does.
        if "__new__" in members:
            assert runtime_parameters(obj) == stub_parameters(members["__new__"]), name


def test_mypy_strict_passes_on_the_package_and_the_examples(tmp_path):
    api = pytest.importorskip("mypy.api", reason="mypy is not installed")
    out, err, status = api.run(
        [
            "--config-file",
            str(PYTHON / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path),
            str(PYTHON / "kumite"),
            str(PYTHON / "examples"),
        ]
    )
    assert status == 0, out + err
