"""Tests for slimwidgets.export: layout of every format, and hostile names."""

from __future__ import annotations

import ast
import os
import re
import sqlite3
import unicodedata
from dataclasses import replace
from html.parser import HTMLParser

import pytest

from slimwidgets.export import (
    CardData,
    render_html,
    render_latex,
    render_markdown,
    render_python,
    render_sql,
    render_text,
)

PWNED = "/tmp/slimwidgets_pwned"

HOSTILE = (
    "x\"); __import__('os').system('touch /tmp/slimwidgets_pwned')#",
    "</td><script>alert(1)</script>",
    "a\nb | c",
    "$\\input{/etc/passwd}$ & 100%_#{}~^\\",
    '"; DROP TABLE patients; --',
    "é ü 中文",
)
HOSTILE_POINTS = (3, -2, 1, 4, -1, 2)
HOSTILE_BINARY = (True, False, True, True, False, True)
HOSTILE_CLASS = "</b><script>x</script>'\"; --\n$%#&"


def normal_card() -> CardData:
    return CardData(
        rows=(("Clump Thickness", 4), ("Bare Nuclei", 2), ("Mitoses", -1)),
        threshold=3,
        positive="Malignant",
        binary=(True, False, True),
        notes=("status: optimal", "training accuracy: 0.96"),
    )


def hostile_card(threshold: int = 2) -> CardData:
    return CardData(
        rows=tuple(zip(HOSTILE, HOSTILE_POINTS)),
        threshold=threshold,
        positive=HOSTILE_CLASS,
        binary=HOSTILE_BINARY,
        notes=("note <script>alert(2)</script>", "line1\nline2 | $x$ & 5%"),
    )


def empty_card(threshold: int = 0) -> CardData:
    return CardData(rows=(), threshold=threshold, positive="Yes", binary=())


ALL_RENDERERS = (
    render_text,
    render_html,
    render_latex,
    render_markdown,
    render_python,
    render_sql,
)


# ---------------------------------------------------------------------------
# Card data and validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, 2.0, "3", None, True, False])
def test_non_integer_point_is_type_error(bad):
    with pytest.raises(TypeError):
        CardData(rows=(("a", bad),), threshold=0, positive="Y", binary=(True,))


def test_non_integer_threshold_is_type_error():
    with pytest.raises(TypeError):
        CardData(rows=(("a", 1),), threshold=0.5, positive="Y", binary=(True,))
    with pytest.raises(TypeError):
        CardData(rows=(("a", 1),), threshold=True, positive="Y", binary=(True,))


def test_numpy_types():
    np = pytest.importorskip("numpy")
    card = CardData(
        rows=[("a", np.int64(4)), ("b", np.int8(-1))],
        threshold=np.int32(2),
        positive="Y",
        binary=[np.True_, True],
    )
    assert card.rows == (("a", 4), ("b", -1))
    assert type(card.rows[0][1]) is int and type(card.threshold) is int
    assert "4 points" in render_text(card)
    for bad in (np.float64(2.0), np.True_):
        with pytest.raises(TypeError):
            CardData(rows=(("a", bad),), threshold=0, positive="Y", binary=(True,))


def test_non_string_name_is_type_error():
    with pytest.raises(TypeError):
        CardData(rows=((3, 1),), threshold=0, positive="Y", binary=(True,))


def test_duplicate_names_and_binary_length_are_value_errors():
    with pytest.raises(ValueError):
        CardData(rows=(("a", 1), ("a", 2)), threshold=0, positive="Y", binary=(True, True))
    with pytest.raises(ValueError):
        CardData(rows=(("a", 1),), threshold=0, positive="Y", binary=())


def test_sequences_are_normalised_to_tuples():
    card = CardData(rows=[["a", 1]], threshold=0, positive=1, binary=[1], notes=["n"])
    assert card.rows == (("a", 1),)
    assert card.binary == (True,)
    assert card.positive == "1"
    assert card.notes == ("n",)


# ---------------------------------------------------------------------------
# Normal card in every format
# ---------------------------------------------------------------------------


def test_text_normal_card():
    out = render_text(normal_card())
    lines = out.split("\n")
    assert lines[0] == "PREDICT MALIGNANT IF SCORE ≥ 3"
    assert lines[1].startswith("1.  Clump Thickness")
    assert lines[1].rstrip().endswith("4 points    .....")
    assert "+" not in lines[1]
    assert lines[2].startswith("2.  2 points × Bare Nuclei")
    assert lines[2].endswith("+ .....")
    assert lines[3].startswith("3.  Mitoses") and "-1 point " in lines[3]
    assert "ADD POINTS FROM ROWS 1–3" in lines[4]
    assert lines[4].endswith("= SCORE")
    assert lines[5:] == ["status: optimal", "training accuracy: 0.96"]
    # The "+" of the rows and the "=" of the total line are aligned.
    assert lines[2].index("+") == lines[3].index("+") == lines[4].index("=")


def test_points_wording():
    card = CardData(
        rows=(("a", 1), ("b", -1), ("c", 4), ("d", -2)),
        threshold=0,
        positive="y",
        binary=(True,) * 4,
    )
    out = render_text(card)
    for phrase in ("1 point ", "-1 point ", "4 points", "-2 points"):
        assert phrase in out + " "
    assert "1 points" not in out


def test_single_row_total_line():
    card = CardData(rows=(("a", 2),), threshold=0, positive="y", binary=(True,))
    assert "ADD POINTS FROM ROW 1 " in render_text(card)


def test_html_normal_card():
    out = render_html(normal_card())
    assert out.startswith("<div") and out.rstrip().endswith("</div>")
    assert "PREDICT MALIGNANT IF SCORE &ge; 3" in out
    for text in (
        "Clump Thickness",
        "4 points",
        "2 points &times; Bare Nuclei",
        "Mitoses",
        "-1 point",
        "ADD POINTS FROM ROWS 1&ndash;3",
        "status: optimal",
    ):
        assert text in out
    assert "<table" in out and 'style="' in out


def test_latex_normal_card():
    out = render_latex(normal_card())
    assert out.startswith(r"\begin{tabular}") and out.endswith(r"\end{tabular}")
    assert r"PREDICT MALIGNANT IF SCORE $\geq$ 3" in out
    assert r"1. & Clump Thickness & 4 points & \ldots \\" in out
    assert r"\multicolumn{2}{l}{2 points $\times$ Bare Nuclei}" in out
    assert "-1 point" in out
    assert "ADD POINTS FROM ROWS 1--3" in out
    assert r"\documentclass" not in out


def test_markdown_normal_card():
    out = render_markdown(normal_card())
    assert out.startswith("**PREDICT MALIGNANT IF SCORE ≥ 3**")
    assert "| 1. | Clump Thickness | 4 points | ..... |" in out
    assert "| 2. | 2 points × Bare Nuclei | | + ..... |" in out
    assert "| 3. | Mitoses | -1 point | + ..... |" in out
    assert "ADD POINTS FROM ROWS 1–3" in out
    assert "status: optimal" in out


def test_python_normal_card():
    src = render_python(normal_card())
    ns: dict = {}
    exec(src, ns)
    assert ns["THRESHOLD"] == 3
    assert ns["POSITIVE"] == "Malignant"
    assert ns["POINTS"] == {"Clump Thickness": 4, "Bare Nuclei": 2, "Mitoses": -1}
    row = {"Clump Thickness": 1, "Bare Nuclei": 3, "Mitoses": 1}
    assert ns["score"](row) == 4 + 6 - 1
    assert ns["predict"](row) == 1
    row = {"Clump Thickness": 0, "Bare Nuclei": 2, "Mitoses": 1}
    assert ns["score"](row) == 3 and ns["predict"](row) == 1  # score >= THRESHOLD
    row = {"Clump Thickness": 0, "Bare Nuclei": 1, "Mitoses": 0}
    assert ns["score"](row) == 2 and ns["predict"](row) == 0


def test_python_custom_function_name_and_pandas_row():
    pd = pytest.importorskip("pandas")
    ns: dict = {}
    exec(render_python(normal_card(), function_name="is_malignant"), ns)
    assert "predict" not in ns
    row = pd.Series({"Clump Thickness": 1, "Bare Nuclei": 0.5, "Mitoses": 0})
    assert ns["score"](row) == pytest.approx(5.0)
    assert ns["is_malignant"](row) == 1


def test_sql_normal_card():
    out = render_sql(normal_card())
    total = '(4 * "Clump Thickness" + 2 * "Bare Nuclei" + -1 * "Mitoses")'
    assert out == (
        "SELECT *,\n"
        f"  CASE WHEN {total} >= 3 THEN 1 ELSE 0 END AS prediction,\n"
        f"  {total} AS score\n"
        'FROM "patients";'
    )
    assert "Malignant" not in out and "--" not in out


def test_the_papers_rule_renders_strictly_in_every_format():
    """Cards made under zero_score="error" predict score > threshold, and say so everywhere."""
    card = replace(normal_card(), rule=">")
    assert render_text(card).startswith("PREDICT MALIGNANT IF SCORE > 3")
    assert "PREDICT MALIGNANT IF SCORE &gt; 3" in render_html(card)
    assert "PREDICT MALIGNANT IF SCORE $>$ 3" in render_latex(card)
    assert render_markdown(card).startswith("**PREDICT MALIGNANT IF SCORE > 3**")
    assert "> 3 THEN 1" in render_sql(card)
    ns: dict = {}
    exec(render_python(card), ns)
    assert (
        ns["predict"]({"Clump Thickness": 0, "Bare Nuclei": 2, "Mitoses": 1}) == 0
    )  # score 3, not > 3
    assert ns["predict"]({"Clump Thickness": 1, "Bare Nuclei": 0, "Mitoses": 0}) == 1


def test_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="rule"):
        replace(normal_card(), rule="> 0 OR 1=1 --")


# ---------------------------------------------------------------------------
# Hostile names: Python
# ---------------------------------------------------------------------------


def _hostile_row(values):
    return dict(zip(HOSTILE, values))


def _expected_score(values):
    return sum(p * v for p, v in zip(HOSTILE_POINTS, values))


HOSTILE_ROWS = [
    (1, 0, 1, 0, 0, 1),  # 3 + 1 + 2 = 6
    (0, 2, 0, 1, 1, 0),  # -4 + 4 - 1 = -1
    (0, 0, 1, 0, 0, 0),  # 1
    (1, 1, 1, 1, 3, 1),  # 3 - 2 + 1 + 4 - 3 + 2 = 5
    (0, 0, 0, 0, 0, 0),
]


def test_python_hostile_names_execute_safely():
    if os.path.exists(PWNED):
        os.remove(PWNED)
    src = render_python(hostile_card(threshold=2))
    ns: dict = {}
    exec(src, ns)
    assert ns["POSITIVE"] == HOSTILE_CLASS
    assert ns["POINTS"] == dict(zip(HOSTILE, HOSTILE_POINTS))
    for values in HOSTILE_ROWS:
        expected = _expected_score(values)
        assert ns["score"](_hostile_row(values)) == expected
        assert ns["predict"](_hostile_row(values)) == int(expected > 2)
    assert not os.path.exists(PWNED)


def _docstring_ids(tree: ast.Module) -> set[int]:
    ids = set()
    for node in [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            ids.add(id(first.value))
    return ids


def test_python_hostile_names_only_in_literals():
    src = render_python(hostile_card())
    tree = ast.parse(src)
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree))
    assert not any(isinstance(n, ast.JoinedStr) for n in ast.walk(tree))

    allowed: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0].id
            if target == "POINTS":
                assert isinstance(node.value, ast.Dict)
                allowed.update(id(k) for k in node.value.keys)
            elif target == "POSITIVE":
                allowed.add(id(node.value))
    docstrings = _docstring_ids(tree)
    fragments = ("__import__", "script", "DROP", "input", "中文", "a\nb")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in allowed:
                continue
            assert id(node) in docstrings, node.value
            assert not any(f in node.value for f in fragments)
    # No hostile text outside string literals either: identifiers are fixed.
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert names <= {"POSITIVE", "THRESHOLD", "POINTS", "score", "row", "total", "name", "points"}
    funcs = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert funcs == ["score", "predict"]


def test_python_str_subclass_cannot_override_repr():
    if os.path.exists(PWNED):
        os.remove(PWNED)

    class Evil(str):
        def __repr__(self):
            return "__import__('os').system('touch /tmp/slimwidgets_pwned')"

    card = CardData(rows=((Evil("a"), 2),), threshold=0, positive=Evil("P"), binary=(True,))
    src = render_python(card)
    ns: dict = {}
    exec(src, ns)
    assert ns["POINTS"] == {"a": 2} and ns["POSITIVE"] == "P"
    assert not os.path.exists(PWNED)


def test_python_name_with_nul_and_control_characters():
    names = ("a\x00b", "tab\there", "\u2028line", "'''", '"""')
    card = CardData(
        rows=tuple((n, 1) for n in names), threshold=2, positive="y", binary=(True,) * len(names)
    )
    ns: dict = {}
    exec(render_python(card), ns)
    assert ns["score"](dict.fromkeys(names, 1)) == 5
    assert ns["predict"](dict.fromkeys(names, 1)) == 1


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "1abc",
        "class",
        "def",
        "None",
        "a-b",
        "pre dict",
        "f()",
        "score",
        "POINTS",
        "THRESHOLD",
        "POSITIVE",
        "ｓｃｏｒｅ",
        3,
        None,
    ],
)
def test_bad_function_name_is_value_error(bad):
    with pytest.raises(ValueError):
        render_python(normal_card(), function_name=bad)


# ---------------------------------------------------------------------------
# Hostile names: SQL
# ---------------------------------------------------------------------------


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_with_rows(rows, table: str = "patients") -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    columns = ", ".join(_quote(n) for n in HOSTILE)
    conn.execute(f"CREATE TABLE {_quote(table)} (id INTEGER, {columns})")
    marks = ", ".join("?" * (len(HOSTILE) + 1))
    conn.executemany(
        f"INSERT INTO {_quote(table)} VALUES ({marks})",
        [(i, *values) for i, values in enumerate(rows)],
    )
    return conn


def _run(conn: sqlite3.Connection, sql: str) -> list[dict]:
    cursor = conn.execute(sql)  # execute() refuses multiple statements
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, r)) for r in cursor.fetchall()]


@pytest.mark.parametrize("threshold", [-5, 0, 2, 5])
def test_sql_hostile_names_in_sqlite(threshold):
    conn = _sqlite_with_rows(HOSTILE_ROWS)
    sql = render_sql(hostile_card(threshold=threshold))
    assert "script>x" not in sql  # class name not emitted
    result = _run(conn, sql)
    assert len(result) == len(HOSTILE_ROWS)
    for record in result:
        values = HOSTILE_ROWS[record["id"]]
        expected = _expected_score(values)
        assert record["score"] == expected
        assert record["prediction"] == int(expected >= threshold)
        # SELECT * still returns the original hostile columns.
        assert record[HOSTILE[0]] == values[0]
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert tables == ["patients"]
    assert conn.execute('SELECT COUNT(*) FROM "patients"').fetchone()[0] == 5


def test_sql_hostile_table_name():
    table = 'pa"tients; DROP TABLE x; --'
    conn = _sqlite_with_rows(HOSTILE_ROWS[:2], table=table)
    result = _run(conn, render_sql(hostile_card(), table=table))
    assert [r["score"] for r in result] == [6, -1]


def test_sql_nul_is_value_error():
    card = CardData(rows=(("a\x00b", 1),), threshold=0, positive="y", binary=(True,))
    with pytest.raises(ValueError):
        render_sql(card)
    with pytest.raises(ValueError):
        render_sql(normal_card(), table="pat\x00ients")


def test_sql_negative_points_never_form_a_comment():
    card = CardData(rows=(("a", -1), ("b", -3)), threshold=-2, positive="y", binary=(True, True))
    sql = render_sql(card)
    assert "--" not in sql
    conn = sqlite3.connect(":memory:")
    conn.execute('CREATE TABLE "patients" (a, b)')
    conn.execute('INSERT INTO "patients" VALUES (1, 0)')
    assert _run(conn, sql) == [{"a": 1, "b": 0, "prediction": 1, "score": -1}]


# ---------------------------------------------------------------------------
# Hostile names: HTML
# ---------------------------------------------------------------------------


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_hostile_names_are_escaped():
    out = render_html(hostile_card())
    parser = _Collector()
    parser.feed(out)
    parser.close()
    assert "script" not in parser.tags
    assert set(parser.tags) <= {"div", "table", "caption", "tbody", "tfoot", "tr", "td"}
    text = "".join(parser.text)
    for name in HOSTILE:
        assert name in text
    assert HOSTILE_CLASS.upper() in text
    assert "note <script>alert(2)</script>" in text
    assert "&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "<script" not in out.lower()


# ---------------------------------------------------------------------------
# Hostile names: LaTeX
# ---------------------------------------------------------------------------

_LATEX_WORDS = {
    "begin",
    "end",
    "multicolumn",
    "textbf",
    "hline",
    "ldots",
    "times",
    "textbackslash",
    "textasciitilde",
    "textasciicircum",
    "textless",
    "textgreater",
    "textbar",
}
_LATEX_SYMBOLS = set("&%$#_{}\\")


def _scan_latex(line: str):
    """Return (control words, unescaped special characters) of one line."""
    words, specials = [], []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            j = i + 1
            while j < len(line) and line[j].isalpha():
                j += 1
            if j > i + 1:
                words.append(line[i + 1 : j])
                i = j
            else:
                assert line[i + 1] in _LATEX_SYMBOLS, line
                i += 2
            continue
        if ch in "$&%#^~_{}":
            specials.append(ch)
        i += 1
    return words, specials


_LATEX_UNESCAPE = {
    r"\textbackslash{}": "\\",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\textless{}": "<",
    r"\textgreater{}": ">",
    r"\textbar{}": "|",
    r"\&": "&",
    r"\%": "%",
    r"\$": "$",
    r"\#": "#",
    r"\_": "_",
    r"\{": "{",
    r"\}": "}",
}


def _latex_unescape(s: str) -> str:
    pattern = "|".join(re.escape(k) for k in sorted(_LATEX_UNESCAPE, key=len, reverse=True))
    return re.sub(pattern, lambda m: _LATEX_UNESCAPE[m.group(0)], s)


def test_latex_hostile_names_are_escaped():
    card = hostile_card()
    out = render_latex(card)
    lines = out.split("\n")
    # Newlines in names and notes do not add lines.
    assert len(lines) == 3 + len(HOSTILE) + 2 + len(card.notes) + 1
    safe_math = ("$>$", r"$\geq$", "$+$", "$=$", r"$\times$")
    for line in lines:
        stripped = line
        for token in safe_math:
            stripped = stripped.replace(token, "")
        words, specials = _scan_latex(stripped)
        assert set(words) <= _LATEX_WORDS, line
        assert "input" not in words
        for ch in "$%#^~_":
            assert ch not in specials, line
        assert specials.count("{") == specials.count("}"), line
        if line.startswith(("\\begin", "\\end", "\\hline")):
            continue
        # Every row spans exactly the four columns of the tabular.
        spans = [int(n) for n in re.findall(r"\\multicolumn\{(\d)\}", line)]
        assert specials.count("&") + 1 + sum(n - 1 for n in spans) == 4, line
    text = _latex_unescape(out)
    for name in HOSTILE:  # a character pdfLaTeX has no glyph for is written as its code point
        assert name.replace("\n", " ").replace("中文", "[U+4E2D][U+6587]") in text
    assert HOSTILE_CLASS.upper().replace("\n", " ") in text


# ---------------------------------------------------------------------------
# Hostile names: Markdown
# ---------------------------------------------------------------------------


def _unescaped_pipes(line: str) -> int:
    count, backslashes = 0, 0
    for ch in line:
        if ch == "|" and backslashes % 2 == 0:
            count += 1
        backslashes = backslashes + 1 if ch == "\\" else 0
    return count


def test_markdown_hostile_names_are_escaped():
    card = hostile_card()
    out = render_markdown(card)
    table = [line for line in out.split("\n") if line.startswith("|")]
    assert len(table) == 2 + len(HOSTILE) + 1
    assert {_unescaped_pipes(line) for line in table} == {5}
    assert not re.search(r"(?<!\\)<script", out, flags=re.IGNORECASE)
    assert "<" not in out.replace("\\<", "")
    assert "&" not in out.replace("&amp;", "")
    assert "\\<script\\>alert\\(1\\)" in out
    assert r"\$\\input\{/etc/passwd\}\$ &amp; 100%\_\#\{\}\~^\\" in out
    # Notes stay on one line each, after a blank line ending the table.
    assert out.split("\n")[-1] == r"line1 line2 \| \$x\$ &amp; 5%"


# ---------------------------------------------------------------------------
# Hostile names: plain text
# ---------------------------------------------------------------------------


def test_text_hostile_names_do_not_add_lines():
    card = hostile_card()
    out = render_text(card)
    lines = out.split("\n")
    assert len(lines) == 1 + len(HOSTILE) + 1 + len(card.notes)
    assert out.splitlines() == lines
    assert "a\\nb | c" in out
    assert lines[-1] == "line1\\nline2 | $x$ & 5%"
    assert lines[0].startswith("PREDICT </B><SCRIPT>X</SCRIPT>")


def test_text_escapes_other_control_characters():
    names = ("red\x1b[31m", "cr\rhere", "tab\there", "ls\u2028x", "bidi\u202ex")
    card = CardData(
        rows=tuple((n, 1) for n in names),
        threshold=0,
        positive="y\x0bz",
        binary=(True,) * len(names),
    )
    out = render_text(card)
    assert len(out.splitlines()) == 1 + len(names) + 1
    for ch in out:
        assert ch == "\n" or unicodedata.category(ch) not in ("Cc", "Zl", "Zp")
    assert "\u202e" not in out
    assert "red\\x1b[31m" in out and "cr\\rhere" in out


# ---------------------------------------------------------------------------
# Empty card
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("render", ALL_RENDERERS)
def test_empty_card_renders(render):
    out = render(empty_card())
    assert isinstance(out, str) and out


def test_empty_card_display_formats():
    card = empty_card(threshold=-1)
    assert render_text(card) == "PREDICT YES IF SCORE ≥ -1\nno features: SCORE = 0"
    assert "no features: SCORE = 0" in render_html(card)
    assert "no features: SCORE $=$ 0" in render_latex(card)
    assert "no features: SCORE = 0" in render_markdown(card)


@pytest.mark.parametrize("threshold, expected", [(-1, 1), (0, 1), (1, 0), (3, 0)])
def test_empty_card_python_and_sql(threshold, expected):
    ns: dict = {}
    exec(render_python(empty_card(threshold)), ns)
    assert ns["POINTS"] == {}
    assert ns["score"]({}) == 0
    assert ns["predict"]({"anything": 5}) == expected

    conn = sqlite3.connect(":memory:")
    conn.execute('CREATE TABLE "patients" (a)')
    conn.execute('INSERT INTO "patients" VALUES (7)')
    assert _run(conn, render_sql(empty_card(threshold))) == [
        {"a": 7, "prediction": expected, "score": 0}
    ]
