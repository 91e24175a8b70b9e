"""The card as a SQL query; names only ever appear as quoted identifiers."""

from __future__ import annotations

from .card import CardData, exact_str


def _sql_identifier(s: str) -> str:
    """Double-quote an SQL identifier, doubling embedded quotes."""
    if "\x00" in s:
        raise ValueError(f"SQL identifiers cannot contain NUL: {s!r}")
    return '"%s"' % s.replace('"', '""')


def _sql_value(value: object) -> str:
    """A level or cut as an SQL literal: text single-quoted (quotes doubled), numbers as written."""
    if type(value) is bool:
        return "1" if value else "0"
    if type(value) is int:
        return "%d" % value
    if type(value) is float:
        return repr(value)
    text = exact_str(value, "level", coerce=False)
    if "\x00" in text:
        raise ValueError(f"SQL text cannot contain NUL: {text!r}")
    return "'%s'" % text.replace("'", "''")


def _rule_sql(column: str, kind: str, value: object) -> str:
    """The rule on the raw column, 1 or 0; NULL (missing) meets only a
    "missing" rule, as in predict."""
    col = _sql_identifier(column)
    if kind == "pass":
        return col
    test = {
        "ge": lambda: "%s >= %s" % (col, _sql_value(value)),
        "lt": lambda: "%s < %s" % (col, _sql_value(value)),
        "eq": lambda: "%s = %s" % (col, _sql_value(value)),
        "is": lambda: "%s = 1" % col,
        "missing": lambda: "%s IS NULL" % col,
        "other": lambda: (
            "%s IS NOT NULL AND %s NOT IN (%s)"
            % (col, col, ", ".join(_sql_value(v) for v in value))
            if value
            else "%s IS NOT NULL" % col
        ),
    }[kind]()
    return "(CASE WHEN %s THEN 1 ELSE 0 END)" % test


def _total_sql(card: CardData) -> str:
    """The total score of a row: points times each rule on the raw columns, or times each column."""
    if not card.rows:
        return "0"
    terms = (
        [_rule_sql(*d) for d in card.rule_defs]
        if card.rule_defs
        else [_sql_identifier(name) for name, _ in card.rows]
    )
    # Terms are joined with " + " so a negative point never forms "--".
    return "(%s)" % " + ".join(
        "%d * %s" % (points, term) for (_, points), term in zip(card.rows, terms)
    )


def render_sql(card: CardData, table: str = "patients") -> str:
    """Return a ``SELECT`` adding ``prediction`` and ``score`` columns.

    Every column and the table are double-quoted identifiers (standard SQL;
    SQLite, PostgreSQL, DuckDB...).  The class name and notes are not
    emitted at all.  A risk card (``card.multiplier`` set) adds a ``risk``
    column, the predicted risk of the positive class (it needs ``EXP``, which
    SQLite has when built with its math functions).

    Raises:
        ValueError: a feature name or ``table`` contains a NUL character.

    Examples:
        >>> card = CardData((("Age", 2), ('a"b', -1)), 0, "Yes", (False, True))
        >>> print(render_sql(card, "t"))
        SELECT *,
          CASE WHEN (2 * "Age" + -1 * "a""b") >= 0 THEN 1 ELSE 0 END AS prediction,
          (2 * "Age" + -1 * "a""b") AS score
        FROM "t";
    """
    table_sql = _sql_identifier(exact_str(table, "table", coerce=False))
    total = _total_sql(card)
    risk = ""
    if card.multiplier is not None:
        # z = (score - threshold) / m; each branch only ever takes EXP of a number <= 0
        z = "((%s - %d) / %s)" % (total, card.threshold, repr(float(card.multiplier)))
        risk = (
            "  CASE WHEN %s >= 0 THEN 1.0 / (1.0 + EXP(-%s))\n"
            "       ELSE EXP(%s) / (1.0 + EXP(%s)) END AS risk,\n" % (z, z, z, z)
        )
    return (
        "SELECT *,\n"
        "  CASE WHEN %s %s %d THEN 1 ELSE 0 END AS prediction,\n"
        "%s"
        "  %s AS score\n"
        "FROM %s;" % (total, card.rule, card.threshold, risk, total, table_sql)
    )


def render_survival_sql(card: CardData, table: str = "patients") -> str:
    """Return a ``SELECT`` adding a time-to-event card's ``score`` and its risk by each horizon.

    The risk of the event by horizon ``h`` is ``1 - EXP(-H0(h) * EXP(score / multiplier))``
    with Breslow's baseline ``H0`` (``card.horizons``), in a column named ``risk by h``. Every
    column and the table are double-quoted identifiers; a raw table's rules are computed from
    its columns (a missing value meets only a "missing" rule). SQLite needs its math functions
    for ``EXP``.

    Raises:
        ValueError: a feature name or ``table`` contains a NUL character.

    Examples:
        >>> card = CardData((("old", 1),), 0, "died", (True,), multiplier=2.0,
        ...                 horizons=((5.0, 0.25),))
        >>> print(render_survival_sql(card, "t"))
        SELECT *,
          (1 * "old") AS score,
          1.0 - EXP(-0.25 * EXP((1 * "old") / 2.0)) AS "risk by 5"
        FROM "t";
    """
    table_sql = _sql_identifier(exact_str(table, "table", coerce=False))
    total = _total_sql(card)
    m = repr(float(card.multiplier or 1.0))
    risks = "".join(
        ",\n  1.0 - EXP(-%s * EXP(%s / %s)) AS %s"
        % (repr(hazard), total, m, _sql_identifier("risk by %g" % horizon))
        for horizon, hazard in card.horizons
    )
    return "SELECT *,\n  %s AS score%s\nFROM %s;" % (total, risks, table_sql)
