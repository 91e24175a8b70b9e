"""The package's floors, read from its source: no import runs upward and none closes a cycle.

Every ``import`` in ``slimwidgets`` counts, at module level and inside functions, relative and
absolute (only those under ``if TYPE_CHECKING:`` are left out: they never run). A failure names
the file, the line and the import, and says which rule it breaks. The same reading checks that
private names stay in their module, that functions, classes and modules stay short (in code
lines), and that ``tests/`` mirrors the package with no test file importing another.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "slimwidgets"
TESTS = ROOT / "tests"

# The floors, lowest first. A module may import its own unit and the units of lower floors;
# two units on one floor are independent of each other.
FLOORS: list[tuple[str, list[str]]] = [
    (
        "ground (needs nothing of the package)",
        ["slimwidgets._version", "slimwidgets._jit", "slimwidgets.datasets", "slimwidgets.export"],
    ),
    ("core", ["slimwidgets.core"]),
    ("solvers", ["slimwidgets.solvers"]),
    ("fitting", ["slimwidgets.fitting"]),
    ("toolbox", ["slimwidgets.toolbox"]),
    ("reports", ["slimwidgets.reporting"]),
    ("front ends", ["slimwidgets.widgets", "slimwidgets.cli"]),
    ("the package's face", ["slimwidgets", "slimwidgets.__main__"]),
]

# Private names (``_x``) imported from another module, each with the reason it may cross.
PRIVATE_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {}

# The size caps count code lines (see code_lines): the first line of each statement and
# decorator, not docstrings, comments, blank lines or how the formatter wraps a statement, so
# documenting a function never pushes it over a cap. Each cap sits a little above the largest
# unit of the tree when it was set (check_card and from_dict 69, Studio 296, formulation.py 707
# code lines); with docstrings and comments counted the caps were 80 and 400
# lines, and modules had none.

# Functions longer than this are hard to read at once.
MAX_FUNCTION_LINES = 70
LONG_FUNCTIONS_ALLOWED: dict[str, str] = {}

# Classes longer than this do more than one job: split them by concern (plain functions or an
# object in a module beside them, as ScoringSystem and Controller).
MAX_CLASS_LINES = 300
LONG_CLASSES_ALLOWED: dict[str, str] = {}

# Modules longer than this hold more than one unit: split them.
MAX_MODULE_LINES = 720
LONG_MODULES_ALLOWED: dict[str, str] = {}

# Folders under tests/ that mirror no unit of the package.
TEST_FOLDERS_OF_THEIR_OWN = {
    "e2e": "the studio in a real JupyterLab and Notebook 7",
    "benchmarks": "the benchmark scripts' own checks",
    "data": "files the tests read",
}


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str  # dotted module name, inside the package
    names: tuple[str, ...]  # the names taken from it (empty for ``import x``)
    where: str  # path:line

    def __str__(self) -> str:
        taken = f" ({', '.join(self.names)})" if self.names else ""
        return f"{self.where}: {self.importer} imports {self.target}{taken}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    """Every Import/ImportFrom node that can run, at any depth, TYPE_CHECKING blocks aside."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """The package's own modules that the module ``name`` imports, each once per statement, and
    the private attributes it reads from a module it imported (``search._Problem``), as names."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in _import_nodes(tree):
        where = f"{_shown(path)}:{node.lineno}"
        if isinstance(node, ast.Import):
            found += [
                Import(name, a.name, (), where)
                for a in node.names
                if a.name.split(".")[0] == "slimwidgets"
            ]
            continue
        if node.level:
            anchor = name.split(".")
            anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
            base = ".".join(anchor + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        if base.split(".")[0] != "slimwidgets":
            continue
        plain = []
        for alias in node.names:  # ``from pkg import submodule`` depends on the submodule itself
            if f"{base}.{alias.name}" in modules:
                found.append(Import(name, f"{base}.{alias.name}", (), where))
            else:
                plain.append(alias.name)
        if plain:
            found.append(Import(name, base, tuple(plain), where))
    return found + _private_attributes(name, path, tree, found)


def _private_attributes(name: str, path: Path, tree: ast.AST, found: list[Import]) -> list[Import]:
    """``module._x`` where ``module`` is bound by one of the imports found
    (by the name it binds)."""
    bound = {}
    for node in _import_nodes(tree):
        for alias in node.names:
            for imp in found:
                if (
                    imp.where.endswith(f":{node.lineno}")
                    and not imp.names
                    and imp.target.endswith("." + alias.name)
                ):
                    bound[alias.asname or alias.name] = imp.target
    reads = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            reads.append(
                Import(name, bound[node.value.id], (node.attr,), f"{_shown(path)}:{node.lineno}")
            )
    return reads


def import_graph() -> list[Import]:
    modules = package_modules()
    return [
        imp for name, path in sorted(modules.items()) for imp in imports_of(name, path, modules)
    ]


def unit_of(module: str) -> tuple[int, str]:
    """(floor index, unit) of a module: the longest unit name that is a prefix of it."""
    best = None
    for index, (_, units) in enumerate(FLOORS):
        for unit in units:
            if (module == unit or module.startswith(unit + ".")) and (
                best is None or len(unit) > len(best[1])
            ):
                best = (index, unit)
    assert best is not None, f"{module} is on no floor: add it to FLOORS in {Path(__file__).name}"
    return best


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (or a module importing itself)."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.importer, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_on_a_floor():
    for module in package_modules():
        unit_of(module)


def test_no_import_runs_upward_or_sideways():
    bad = []
    for imp in import_graph():
        (floor, unit), (target_floor, target_unit) = unit_of(imp.importer), unit_of(imp.target)
        if unit == target_unit or target_floor < floor:
            continue
        why = "upward" if target_floor > floor else "sideways, to another unit of its floor"
        bad.append(
            f"{imp}\n    runs {why}: {unit} (floor '{FLOORS[floor][0]}') -> "
            f"{target_unit} (floor '{FLOORS[target_floor][0]}')"
        )
    assert not bad, "imports against the floors:\n" + "\n".join(bad)


def test_no_import_cycle_between_modules():
    edges = import_graph()
    found = cycles(edges)
    report = []
    for component in found:
        members = set(component)
        report.append(
            " <-> ".join(component)
            + "\n"
            + "\n".join(f"    {e}" for e in edges if e.importer in members and e.target in members)
        )
    assert not found, "import cycles (function-level imports count):\n" + "\n".join(report)


def test_private_names_stay_in_their_module():
    crossing = []
    for imp in import_graph():
        for name in imp.names:
            if (
                name.startswith("_")
                and not name.startswith("__")
                and (imp.importer, name) not in PRIVATE_IMPORTS_ALLOWED
            ):
                crossing.append(
                    f"{imp.where}: {imp.importer} takes the private {name} from {imp.target}"
                )
        private_module = imp.target.rsplit(".", 1)[-1].startswith("_") and not imp.target.endswith(
            "__main__"
        )
        home = imp.target.rsplit(".", 1)[0]
        if private_module and not (imp.importer == home or imp.importer.startswith(home + ".")):
            crossing.append(
                f"{imp.where}: {imp.importer} imports the private module {imp.target} "
                f"from outside {home}"
            )
    assert not crossing, (
        "private names imported across modules (make them public, or list them "
        "with a reason in PRIVATE_IMPORTS_ALLOWED):\n" + "\n".join(crossing)
    )


def test_the_tests_mirror_the_package():
    units = {unit.split(".")[-1] for _, floor in FLOORS for unit in floor}
    stray = [
        d.name
        for d in TESTS.iterdir()
        if d.is_dir()
        and not d.name.startswith((".", "_"))
        and d.name not in units
        and d.name not in TEST_FOLDERS_OF_THEIR_OWN
    ]
    assert not stray, f"tests/ folders that mirror no part of slimwidgets: {stray}"


def test_no_test_file_imports_another():
    test_files = {p.stem for p in TESTS.rglob("test_*.py")}
    bad = []
    for path in TESTS.rglob("*.py"):
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            bad += [
                f"{path.relative_to(ROOT)}:{node.lineno} imports {n}"
                for n in names
                if n.split(".")[-1] in test_files
            ]
    assert not bad, (
        "test files importing test files (share helpers through a module or a fixture):\n"
        + "\n".join(bad)
    )


def _docstring_starts(source: str) -> set[tuple[int, int]]:
    """Where each docstring (of the module, a class or a function) starts: (line, column)."""
    starts = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                starts.add((body[0].value.lineno, body[0].value.col_offset))
    return starts


def code_lines(source: str) -> list[int]:
    """The lines of ``source`` that hold code: the first line of each statement and decorator,
    and every line of a string spanning several that is not a docstring (a template, a script).
    Docstrings, comments and blank lines are left out, and so are the continuation lines of a
    bracketed expression: they come and go as the formatter wraps code at 100 columns."""
    docstrings = _docstring_starts(source)
    lines, starts = set(), True
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NEWLINE:
            starts = True
        elif tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            continue
        elif tok.type == tokenize.STRING and starts and tok.start in docstrings:
            starts = False
        elif tok.type != tokenize.ENDMARKER:
            if starts:
                lines.add(tok.start[0])
                starts = False
            if tok.type == tokenize.STRING:
                lines.update(range(tok.start[0], tok.end[0] + 1))
    return sorted(lines)


def _length(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, read: list[int]
) -> tuple[int, int]:
    """Where ``node`` starts (its first decorator) and how many of its lines are read."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, sum(1 for n in read if first <= n <= node.end_lineno)


def test_only_code_lines_count():
    """A call on one line and the same call wrapped one argument a line are one code line; the
    docstring, the comment lines and the blank line count for nothing, a string that is not a
    docstring counts every line."""
    doc = '    """Doc\n    more."""\n'
    one = f"def f():\n{doc}    # why\n    g(a, b)  # why\n\n    return 1\n"
    wrapped = f"def f():\n{doc}    g(\n        a,\n        b,\n    )  # why\n\n    return 1\n"
    assert code_lines(one) == [1, 5, 7]
    assert len(code_lines(wrapped)) == 3
    assert code_lines('"""Module."""\nX = """a\nb"""\n') == [2, 3]


def long_units(path: Path, name: str) -> list[str]:
    """The functions, classes and module (``name``, at ``path``) over their caps, not allowed."""
    source = path.read_text(encoding="utf-8")
    read = code_lines(source)
    long = []
    if len(read) > MAX_MODULE_LINES and name not in LONG_MODULES_ALLOWED:
        long.append(f"{_shown(path)}: module {name} is {len(read)} code lines")
    for node in ast.walk(ast.parse(source)):
        is_class = isinstance(node, ast.ClassDef)
        if not (is_class or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))):
            continue
        cap, allowed = (
            (MAX_CLASS_LINES, LONG_CLASSES_ALLOWED)
            if is_class
            else (MAX_FUNCTION_LINES, LONG_FUNCTIONS_ALLOWED)
        )
        first, lines = _length(node, read)
        if lines > cap and f"{name}.{node.name}" not in allowed:
            what = "class" if is_class else "function"
            long.append(f"{_shown(path)}:{first}: {what} {node.name} is {lines} code lines")
    return long


def test_functions_classes_and_modules_are_short_enough_to_read():
    long = [
        line for name, path in sorted(package_modules().items()) for line in long_units(path, name)
    ]
    assert not long, (
        f"over the caps (functions {MAX_FUNCTION_LINES}, classes {MAX_CLASS_LINES}, modules "
        f"{MAX_MODULE_LINES} code lines; split them):\n" + "\n".join(long)
    )


def test_the_length_checks_can_fail(tmp_path):
    """A function and a class one code line over their caps are named (a decorator counted); at
    the cap, with a docstring and comments longer than the cap, they are not; a module over its
    cap is named."""
    doc = '    """Doc.\n\n' + "    More.\n" * MAX_CLASS_LINES + '    """\n'
    notes = "    # why\n" * MAX_CLASS_LINES

    def body(n: int) -> str:
        return "".join(f"    x{i} = {i}\n" for i in range(n))

    source = tmp_path / "fake.py"
    source.write_text(
        f"@cache\ndef long():\n{body(MAX_FUNCTION_LINES - 1)}\n"
        f"def short():\n{doc}{notes}{body(MAX_FUNCTION_LINES - 1)}\n"
        f"@dataclass\nclass Long:\n{body(MAX_CLASS_LINES - 1)}\n"
        f"class Short:\n{doc}{notes}{body(MAX_CLASS_LINES - 1)}",
        encoding="utf-8",
    )
    start = source.read_text(encoding="utf-8").splitlines().index("@dataclass") + 1
    total = 2 * MAX_FUNCTION_LINES + 2 * MAX_CLASS_LINES + 2  # over the module cap too
    assert long_units(source, "slimwidgets.core.fake") == [
        f"{source}: module slimwidgets.core.fake is {total} code lines",
        f"{source}:1: function long is {MAX_FUNCTION_LINES + 1} code lines",
        f"{source}:{start}: class Long is {MAX_CLASS_LINES + 1} code lines",
    ]
    source.write_text(body(MAX_MODULE_LINES + 1).replace("    ", ""), encoding="utf-8")
    assert long_units(source, "slimwidgets.core.fake") == [
        f"{source}: module slimwidgets.core.fake is {MAX_MODULE_LINES + 1} code lines"
    ]


def test_the_reading_sees_what_runs(tmp_path):
    """The checks above can fail: a function-level import up the floors is seen (and one under
    TYPE_CHECKING is not), a private name read off a module is seen, and a cycle is found."""
    source = tmp_path / "fake.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import scoring\n"
        "if TYPE_CHECKING:\n"
        "    from ..widgets.controller import Controller\n"
        "def f():\n"
        "    from ..toolbox.risk import risk_table\n"
        "    return scoring._limits, risk_table\n",
        encoding="utf-8",
    )
    found = imports_of("slimwidgets.core.fake", source, package_modules())
    assert sorted((i.target, i.names) for i in found) == [
        ("slimwidgets.core.scoring", ()),
        ("slimwidgets.core.scoring", ("_limits",)),
        ("slimwidgets.toolbox.risk", ("risk_table",)),
    ]
    assert unit_of("slimwidgets.toolbox.risk")[0] > unit_of("slimwidgets.core.fake")[0]  # upward
    loop = [
        Import("a", "b", (), "a.py:1"),
        Import("b", "c", (), "b.py:1"),
        Import("c", "a", (), "c.py:1"),
        Import("c", "d", (), "c.py:2"),
    ]
    assert cycles(loop) == [["a", "b", "c"]]


def rule_builders() -> tuple[list[str], dict[str, ast.ClassDef]]:
    """(the classes that learn rules from a table: a ``fit``, a ``transform`` and a
    ``get_feature_names_out`` of their own, the subclasses of ``RuleBuilder`` by name)."""
    builders, presets = [], {}
    for name, path in sorted(package_modules().items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            }
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            if "RuleBuilder" in bases:
                presets[f"{name}.{node.name}"] = node
            elif {"fit", "transform", "get_feature_names_out"} <= methods:
                builders.append(f"{name}.{node.name}")
    return builders, presets


def test_one_public_rule_builder():
    """Rules are learnt from a table by one class, the one ``fit`` uses; any other is a preset of
    it (a subclass) whose constructor warns that it is deprecated."""
    builders, presets = rule_builders()
    assert builders == ["slimwidgets.core.rules.RuleBuilder"], (
        f"rule builders besides core.rules.RuleBuilder (make them presets of it): {builders}"
    )
    silent = [
        name
        for name, node in presets.items()
        if not any(
            isinstance(n, ast.FunctionDef)
            and n.name == "__init__"
            and "DeprecationWarning" in ast.unparse(n)
            for n in node.body
        )
    ]
    assert not silent, f"presets of RuleBuilder that do not warn they are deprecated: {silent}"


# The studio's two big classes are composed of feature objects, not stacked from mixins: each
# may have at most one base class besides ``object`` (the Studio's is its ipywidgets container).
COMPOSED_CLASSES = {"widgets/controller.py": "Controller", "widgets/studio.py": "Studio"}


def inherited(package: Path) -> dict[str, list[str]]:
    """The base classes of each of :data:`COMPOSED_CLASSES`, read from the source under
    ``package`` (``object`` left out)."""
    bases = {}
    for file, name in COMPOSED_CLASSES.items():
        tree = ast.parse((package / file).read_text(encoding="utf-8"))
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
        bases[name] = [ast.unparse(b) for b in node.bases if ast.unparse(b) != "object"]
    return bases


def test_the_studio_is_composed_not_inherited():
    """``Controller`` and ``Studio`` hold their features as objects: one base class at most."""
    stacked = {name: b for name, b in inherited(PACKAGE).items() if len(b) > 1}
    assert not stacked, f"classes stacked from mixins (make each feature an object): {stacked}"


def test_the_composition_check_can_fail(tmp_path):
    """A class with two mixins is named, as the controller's eleven and the studio's three
    were."""
    for file, name in COMPOSED_CLASSES.items():
        (tmp_path / file).parent.mkdir(exist_ok=True)
        (tmp_path / file).write_text(f"class {name}(Undo, Groups):\n    pass\n", encoding="utf-8")
    assert inherited(tmp_path) == {name: ["Undo", "Groups"] for name in COMPOSED_CLASSES.values()}


# The studio's feature objects share a small core (widgets/studio_core.py) and the controller's
# public commands: no module of widgets/ reads a private attribute of another object. Names that
# a protocol spells with an underscore are public: a named tuple's ``_replace``, IPython's
# ``_repr_mimebundle_``.
PROTOCOL_NAMES = frozenset({"_replace", "_asdict", "_fields", "_repr_mimebundle_"})
OWN_OBJECTS = frozenset({"self", "cls", "type(self)"})


def foreign_private_reads(path: Path) -> list[str]:
    """``line: x._name`` for each private attribute of another object than ``self`` (or its
    class) that the module at ``path`` reads or writes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        (
            f"{node.lineno}: {ast.unparse(node)}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in PROTOCOL_NAMES
            and ast.unparse(node.value) not in OWN_OBJECTS
        ),
        key=lambda hit: int(hit.split(":")[0]),
    )


def test_no_widget_reaches_into_another_object():
    """Each feature object uses the studio's core and public names, never ``x._name``."""
    reaching = {
        _shown(path): hits
        for path in sorted((PACKAGE / "widgets").glob("*.py"))
        if (hits := foreign_private_reads(path))
    }
    assert not reaching, f"private attributes of other objects read in widgets/: {reaching}"


def test_the_private_read_check_can_fail(tmp_path):
    """A feature holding the controller and reading its lock is named, as twelve were."""
    feature = tmp_path / "feature.py"
    feature.write_text(
        "class Feature:\n"
        "    def go(self):\n"
        "        with self._c._lock:\n"
        "            return self._own, type(self)._kind, row._replace(a=1)\n",
        encoding="utf-8",
    )
    assert foreign_private_reads(feature) == ["3: self._c._lock"]


# The feature objects get the studio's small core (widgets/studio_core.py) and, in their
# constructors, the few commands of the controller and the other features they call; none holds
# the controller. Only the controller's own module and the Studio, which makes it, may.
CONTROLLER_HOLDERS = frozenset({"controller.py", "studio.py", "__init__.py"})
CONTROLLER_ATTRIBUTES = frozenset({"controller", "_controller", "_c"})


def controller_holds(path: Path) -> list[str]:
    """``line: what`` for each place the module at ``path`` names the ``Controller`` class in
    an import (under ``TYPE_CHECKING`` too), takes a ``controller`` parameter in a constructor,
    or keeps the controller on ``self`` (``self.controller``, ``self._controller``,
    ``self._c``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and any(a.name == "Controller" for a in node.names):
            found.append(f"{node.lineno}: imports Controller")
        elif isinstance(node, ast.FunctionDef) and node.name == "__init__":
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            found += [
                f"{node.lineno}: __init__ takes {a.arg!r}"
                for a in args
                if a.arg == "controller"
                or (a.annotation is not None and "Controller" in ast.unparse(a.annotation))
            ]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in CONTROLLER_ATTRIBUTES
            and ast.unparse(node.value) == "self"
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(set(found), key=lambda hit: int(hit.split(":")[0]))


def test_no_feature_holds_the_controller():
    """Each feature object of widgets/ is given the core and what it calls, not the controller."""
    holding = {
        _shown(path): hits
        for path in sorted((PACKAGE / "widgets").glob("*.py"))
        if path.name not in CONTROLLER_HOLDERS and (hits := controller_holds(path))
    }
    assert not holding, f"feature modules that hold the controller (give them the core): {holding}"


def test_the_controller_hold_check_can_fail(tmp_path):
    """A feature made with the controller and keeping it is named, as sixteen were (in fourteen
    modules)."""
    feature = tmp_path / "feature.py"
    feature.write_text(
        "if TYPE_CHECKING:\n"
        "    from .controller import Controller\n"
        "class Feature:\n"
        "    def __init__(self, owner: Controller, core):\n"
        "        self._c, self._core = owner, core\n"
        "class Other:\n"
        "    def __init__(self, controller):\n"
        "        self.controller = controller\n"
        "        self._s.controller.set_spec(core.spec)\n",
        encoding="utf-8",
    )
    assert controller_holds(feature) == [
        "2: imports Controller",
        "4: __init__ takes 'owner'",
        "5: self._c",
        "7: __init__ takes 'controller'",
        "8: self.controller",
    ]


# A card family is one object (core/card_family.py): code asks the family of a spec or a card,
# it does not compare names. The names of the families and of their losses; the decision
# family's paper models (slim, pilm, tilm, m_of_n) are variants inside one family, not counted.
FAMILY_NAMES = frozenset({"decision", "risk", "time_to_event", "zero_one", "logistic", "cox"})
# the issue allows 6 where a family is chosen; the look-ups of core/family.py compare the
# objects' attributes with what they are given, so none is left
MAX_FAMILY_NAME_COMPARISONS = 0


def family_name_comparisons(path: Path) -> list[str]:
    """Each comparison in ``path`` with a family or loss name as one side (``x == "risk"``,
    ``loss != "cox"``) or in a tuple, list or set of constants (``x in ("logistic", ...)``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and any(
            _names_a_family(side) for side in (node.left, *node.comparators)
        ):
            found.append(f"{_shown(path)}:{node.lineno}: {ast.unparse(node)}")
    return found


def _names_a_family(node: ast.expr) -> bool:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_family(e) for e in node.elts)
    return isinstance(node, ast.Constant) and node.value in FAMILY_NAMES


def test_families_are_asked_not_compared_by_name():
    found = [
        c for _, path in sorted(package_modules().items()) for c in family_name_comparisons(path)
    ]
    assert len(found) <= MAX_FAMILY_NAME_COMPARISONS, (
        f"{len(found)} comparisons of a card family's or loss's name (at most "
        f"{MAX_FAMILY_NAME_COMPARISONS}): ask the family object instead "
        "(slimwidgets.core.family: family_of_loss, family_of_card):\n" + "\n".join(found)
    )


def test_the_family_count_sees_each_form(tmp_path):
    """Equality, inequality, membership in a tuple and a name on the left are counted; a
    paper model's name, a comparison of two variables and a string elsewhere are not."""
    source = tmp_path / "fake.py"
    source.write_text(
        'a = card.family == "risk"\n'
        'b = spec.loss != "logistic"\n'
        'c = loss in ("zero_one", "cox")\n'
        'd = "time_to_event" == name\n'
        'e = card.family == "tilm"\n'
        "f = family.loss_name == loss\n"
        'g = {"risk": 1}\n',
        encoding="utf-8",
    )
    assert [line.split(": ", 1)[0] for line in family_name_comparisons(source)] == [
        f"{_shown(source)}:{n}" for n in (1, 2, 3, 4)
    ]


# A card's family is asked for what differs between families (its words, its file reader, its
# driver, its studio); a type check on one family's card class is a name comparison in disguise.
FAMILY_CARD_CLASSES = frozenset({"SurvivalCard"})


def family_class_checks(path: Path) -> list[str]:
    """Each ``isinstance(x, C)`` in ``path`` whose class names a family's own card class."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and FAMILY_CARD_CLASSES
            & {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
        ):
            found.append(f"{_shown(path)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_a_card_s_family_is_asked_not_its_class():
    found = [
        c
        for name, path in sorted(package_modules().items())
        if not name.startswith("slimwidgets.core.survival")  # the family's own modules
        for c in family_class_checks(path)
    ]
    assert not found, (
        "type checks on a family's card class: ask family_of_card(card) instead:\n"
        + "\n".join(found)
    )


def test_the_class_check_sees_each_form(tmp_path):
    source = tmp_path / "fake.py"
    source.write_text(
        "a = isinstance(card, SurvivalCard)\n"
        "b = isinstance(card, (ScoringSystem, SurvivalCard))\n"
        "c = isinstance(card, ScoringSystem)\n",
        encoding="utf-8",
    )
    assert [line.split(": ", 1)[0] for line in family_class_checks(source)] == [
        f"{_shown(source)}:{n}" for n in (1, 2)
    ]


def test_the_counted_names_are_the_families():
    """The names counted are those of the family objects and their losses."""
    from slimwidgets.core.family import FAMILIES

    named = {f.name for f in FAMILIES} | {f.loss_name for f in FAMILIES}
    assert named == FAMILY_NAMES


# A fit's MIP/LP is the family's (``family_of_loss(spec.loss).loss.problem(data, spec)``), so a
# new family's program is the one every caller gets. Only the module that defines the decision
# program and registers it with its family builds it by name; docstring examples, which build
# one on purpose to show a solver, are text and are not read.
BUILDS_THE_PROGRAM = {"slimwidgets.core.formulation": "defines it and registers it"}
# Modules that still build the decision program by name, each with the reason.
PROGRAM_BUILDERS_ALLOWED: dict[str, str] = {}


def program_builds(path: Path) -> list[str]:
    """Each import or use of ``build_formulation`` in ``path`` (code, not docstrings)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        named = (
            (isinstance(node, ast.Name) and node.id == "build_formulation")
            or (isinstance(node, ast.Attribute) and node.attr == "build_formulation")
            or (
                isinstance(node, ast.ImportFrom)
                and any(a.name == "build_formulation" for a in node.names)
            )
        )
        if named:
            found.append(f"{_shown(path)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_program_is_asked_of_the_family():
    found = [
        c
        for name, path in sorted(package_modules().items())
        if name not in BUILDS_THE_PROGRAM and name not in PROGRAM_BUILDERS_ALLOWED
        for c in program_builds(path)
    ]
    assert not found, (
        "build_formulation used by name: ask the family of the spec for its program, "
        "family_of_loss(spec.loss).loss.problem(data, spec):\n" + "\n".join(found)
    )


def test_the_program_check_sees_each_form(tmp_path):
    """An import, a call, a call through the module and a reference are seen; an example in a
    docstring is not."""
    source = tmp_path / "fake.py"
    source.write_text(
        "from slimwidgets.core.formulation import build_formulation\n"
        "a = build_formulation(data, spec)\n"
        "b = formulation.build_formulation(data, spec)\n"
        "c = build_formulation\n"
        'def d():\n    """>>> build_formulation(data, spec)"""\n',
        encoding="utf-8",
    )
    lines = [line.split(": ", 1)[0] for line in program_builds(source)]
    assert sorted(set(lines)) == [f"{_shown(source)}:{n}" for n in (1, 2, 3, 4)]


# Whether a card predicts a risk is its family's answer (``family_of_card(card).predicts_risk``),
# not read from which fields the card has: a card's own modules and the exports (the ground
# floor, which renders a card's data and asks nothing of the package) read its fields.
CARD_FIELDS_OF_A_FAMILY = frozenset({"multiplier", "horizons"})
READS_ITS_OWN_FIELDS = ("slimwidgets.export", "slimwidgets.core.scoring", "slimwidgets.core.card_")
# where a card is made from a solver's answer, the answer's multiplier says which card it is
MAX_CARD_FIELD_CHECKS = 1


def card_field_checks(path: Path) -> list[str]:
    """Each ``x.multiplier is None`` (or ``is not``, ``==``, ``!=`` None) in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Attribute)
            and node.left.attr in CARD_FIELDS_OF_A_FAMILY
            and any(isinstance(c, ast.Constant) and c.value is None for c in node.comparators)
        ):
            found.append(f"{_shown(path)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_a_card_s_family_is_asked_not_its_fields():
    found = [
        c
        for name, path in sorted(package_modules().items())
        if not name.startswith(READS_ITS_OWN_FIELDS)
        for c in card_field_checks(path)
    ]
    assert len(found) <= MAX_CARD_FIELD_CHECKS, (
        f"{len(found)} checks of a card's family by its fields (at most "
        f"{MAX_CARD_FIELD_CHECKS}): ask family_of_card(card) (predicts_risk, ...):\n"
        + "\n".join(found)
    )


def test_the_field_check_sees_each_form(tmp_path):
    source = tmp_path / "fake.py"
    source.write_text(
        "a = card.multiplier is None\n"
        "b = self.card.horizons is not None\n"
        "c = multiplier is None\n"
        "d = card.multiplier or 1.0\n",
        encoding="utf-8",
    )
    assert [line.split(": ", 1)[0] for line in card_field_checks(source)] == [
        f"{_shown(source)}:{n}" for n in (1, 2)
    ]


# The risk and time-to-event families' solvers register their pieces on their loss
# (``RISK.loss``: prepare, search, walk, scan, floors; ``TIME_TO_EVENT.loss``: prepare, search,
# scan); the floors above solvers/ ask the family for them and import none (type hints aside).
RISK_SOLVERS = ("slimwidgets.solvers.logistic", "slimwidgets.solvers.risk_")
COX_SOLVERS = ("slimwidgets.solvers.cox_",)


def family_solver_imports(edges: list[Import], solvers: tuple[str, ...]) -> list[str]:
    """Each import from above ``solvers/`` of a module named by a prefix of ``solvers``."""
    solvers_floor = unit_of("slimwidgets.solvers")[0]
    return [
        str(imp)
        for imp in edges
        if unit_of(imp.importer)[0] > solvers_floor and imp.target.startswith(solvers)
    ]


def test_the_risk_solvers_are_asked_of_the_family():
    found = family_solver_imports(import_graph(), RISK_SOLVERS)
    assert not found, (
        "imports of the risk family's solvers above solvers/: ask RISK.loss (or "
        "family_of_loss(spec.loss).loss) for the piece instead:\n" + "\n".join(found)
    )


def test_the_time_to_event_solvers_are_asked_of_the_family():
    found = family_solver_imports(import_graph(), COX_SOLVERS)
    assert not found, (
        "imports of the time-to-event family's solvers above solvers/: ask TIME_TO_EVENT.loss "
        "for the piece instead (prepare, search, scan):\n" + "\n".join(found)
    )


def test_the_family_solver_check_can_fail():
    """An import of a risk or Cox solver from fitting/ or widgets/ is found; one inside
    solvers/, and one of another solver from above, are not."""
    edges = [
        Import("slimwidgets.fitting.risk_driver", "slimwidgets.solvers.logistic", ("x",), "a:1"),
        Import("slimwidgets.widgets.warmup", "slimwidgets.solvers.risk_cone", (), "b:2"),
        Import("slimwidgets.solvers.risk_bound", "slimwidgets.solvers.logistic", ("x",), "c:3"),
        Import("slimwidgets.fitting.driver", "slimwidgets.solvers.scan", ("x",), "d:4"),
        Import("slimwidgets.fitting.survival_driver", "slimwidgets.solvers.cox_tree", (), "e:5"),
        Import("slimwidgets.solvers.search", "slimwidgets.solvers.cox_tree", ("x",), "f:6"),
    ]
    assert [line.split(": ", 1)[0] for line in family_solver_imports(edges, RISK_SOLVERS)] == [
        "a:1",
        "b:2",
    ]
    assert [line.split(": ", 1)[0] for line in family_solver_imports(edges, COX_SOLVERS)] == ["e:5"]
