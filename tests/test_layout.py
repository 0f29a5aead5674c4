"""The shape of the code base (issue 30's goals), checked from the source on every run: no
import cycle among pyclmatch's modules, no function longer than a screen, no measurements in
the library, a runnable example in every public docstring, a short README."""
import ast
import inspect
import os
import re

import pytest

import pyclmatch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "pyclmatch")
MAX_LINES = 80


def _modules():
    """{module name: path} of every module of the package, from the source tree."""
    out = {}
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


MODULES = _modules()


def _targets(module, node):
    """The pyclmatch modules that one import statement of ``module`` names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    package = module if MODULES[module].endswith("__init__.py") else module.rpartition(".")[0]
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[:len(parts) - node.level + 1])
        base = f"{base}.{node.module}" if node.module else base
    else:
        base = node.module or ""
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def import_graph():
    """{module: modules it imports}, counting every import statement (inside functions too)."""
    graph = {}
    for name, path in MODULES.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                deps.update(t for t in _targets(name, node) if t in MODULES and t != name)
        graph[name] = deps
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def _functions():
    for name, path in sorted(MODULES.items()):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                       and isinstance(body[0].value.value, str))
                start = body[0].end_lineno + 1 if doc and len(body) > 1 else body[0].lineno
                yield f"{name}.{node.name}:{node.lineno}", node.end_lineno - start + 1


def test_functions_fit_a_screen():
    long = [(where, n) for where, n in _functions() if n > MAX_LINES]
    assert long == []


#: what belongs in benchmarks/results and commit messages, not in the library
MEASUREMENT = re.compile(r"\b(H100|H200|A100|V100)\b|benchmarks/results")


def test_no_measurements_in_the_library():
    found = []
    for name, path in sorted(MODULES.items()):
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if MEASUREMENT.search(line):
                    found.append(f"{name}:{i}: {line.strip()}")
    assert found == []


def public_objects():
    """Every public function and class (exceptions aside): pyclmatch's ``__all__`` and the
    public functions of the modules a user imports by name."""
    seen = {}
    for name in pyclmatch.__all__:
        obj = getattr(pyclmatch, name)
        if inspect.isfunction(obj) or (inspect.isclass(obj)
                                       and not issubclass(obj, BaseException)):
            seen[f"pyclmatch.{name}"] = obj
    for mod in (pyclmatch.generators, pyclmatch.interop, pyclmatch.io):
        for name in getattr(mod, "__all__", dir(mod)):
            obj = getattr(mod, name)
            if not name.startswith("_") and inspect.isfunction(obj) \
                    and obj.__module__ == mod.__name__:
                seen[f"{mod.__name__}.{name}"] = obj
    return seen


@pytest.mark.parametrize("name", sorted(public_objects()))
def test_public_docstring_has_an_example(name):
    doc = inspect.getdoc(public_objects()[name]) or ""
    assert ">>>" in doc, f"{name}: no runnable example in its docstring"


def test_readme_is_short():
    assert os.path.getsize(os.path.join(ROOT, "README.md")) <= 6 * 1024
