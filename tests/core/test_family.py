"""The card families as objects: each answers the same questions, the look-ups choose one,
and a family defined outside the package is found by them like the package's own."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.card_family import CardFamily
from slimwidgets.core.family import (
    DECISION,
    FAMILIES,
    RISK,
    TIME_TO_EVENT,
    family_for,
    family_named,
    family_of_card,
    family_of_loss,
)

HOSTILE = "<b>age</b>"


def _table(seed: int = 0, n: int = 40) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)), columns=[HOSTILE, "chf", "smoker"])
    y = (X[HOSTILE] + X["chf"] + rng.random(n) > 1.4).astype(int).to_numpy()
    return X, y


def _surv(y: np.ndarray, seed: int = 0) -> np.ndarray:
    time = np.random.default_rng(seed).uniform(1, 10, size=len(y)) / (1 + y)
    out = np.empty(len(y), dtype=[("event", "?"), ("time", "<f8")])
    out["event"], out["time"] = y.astype(bool) | (time < 3), time
    return out


@pytest.fixture(scope="module")
def cards() -> dict[str, tuple[Any, pd.DataFrame, Any]]:
    """One real card of each family, fitted on a tiny table, with the rows it was fitted on."""
    X, y = _table()
    fast = dict(max_size=2, time_limit=20)
    return {
        "decision": (sw.fit(X, y, **fast), X, y),
        "risk": (sw.fit(X, y, loss="logistic", **fast), X, y),
        "time_to_event": (sw.fit(X, _surv(y), **fast), X, _surv(y)),
    }


def test_each_spec_or_y_reads_as_exactly_one_family():
    y = np.array([0, 1])
    cases = {
        "decision": (y, {}),
        "risk": (y, {"loss": "logistic"}),
        "time_to_event": (_surv(y), {}),
    }
    for name, (target, options) in cases.items():
        assert [f.name for f in FAMILIES if f.reads(target, options)] == [name]
        assert family_for(target, options) is family_named(name)
    assert family_for(y, {"loss": "zero_one"}) is DECISION
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        family_for(y, {"loss": "hinge"})


def test_every_family_names_itself_apart_from_the_others():
    """Each family sets every name it is chosen by, and no two share one: a look-up can never
    answer with the wrong family."""
    for family in FAMILIES:
        assert family.name and family.loss_name and family.card_labels and family.objective
    for names in ([f.name for f in FAMILIES], [f.loss_name for f in FAMILIES]):
        assert len(set(names)) == len(names) == len(FAMILIES)
    labels = [label for f in FAMILIES for label in f.card_labels]
    assert len(set(labels)) == len(labels)


def test_the_look_ups_agree_with_the_objects():
    for family in FAMILIES:
        assert family_of_loss(family.loss_name) is family
        assert family_named(family.name) is family
        for label in family.card_labels:
            assert family_of_card(type("Card", (), {"family": label})()) is family
    assert family_of_loss(None) is DECISION
    for bad, look_up in (("hinge", family_of_loss), ("nope", family_named)):
        with pytest.raises(ValueError, match=f"unknown .*{bad!r}"):
            look_up(bad)


@pytest.mark.slow
def test_each_family_makes_its_cards_and_answers_for_them(cards):
    """Each real card belongs to its family only; its figures are finite numbers in the
    user's units; its text names its features and its HTML escapes them."""
    for name, (card, X, y) in cards.items():
        family = family_of_card(card)
        assert family.name == name
        assert [f.name for f in FAMILIES if f.makes(card)] == [name]
        figures = family.figures(card, X, y)
        assert figures and all(math.isfinite(v) for v in figures.values()), (name, figures)
        shares = [v for k, v in figures.items() if k in ("error", "TPR", "FPR", "AUC")]
        assert all(0 <= v <= 1 for v in shares), (name, figures)
        used = [n for n in X.columns if n in family.card_text(card)]
        assert used, (name, family.card_text(card))
        page = family.card_html(card)
        assert HOSTILE not in page, name
        if HOSTILE in family.card_text(card):
            assert "&lt;b&gt;age&lt;/b&gt;" in page, name


@pytest.mark.slow
def test_the_figures_are_the_cards_own(cards):
    card, X, y = cards["decision"]
    m = card.metrics(X, y)
    assert DECISION.figures(card, X, y) == {"error": m.error, "TPR": m.tpr, "FPR": m.fpr}
    card, X, y = cards["risk"]
    assert RISK.figures(card, X, y)["log-loss"] == pytest.approx(card.metrics(X, y).log_loss)
    assert card.multiplier is not None and RISK.predicts_risk and not DECISION.predicts_risk
    card, X, y = cards["time_to_event"]
    assert TIME_TO_EVENT.figures(card, X, y)["Harrell's C"] == pytest.approx(card.score(X, y))


def test_the_decision_family_says_what_a_solve_optimises():
    spec = sw.make_spec
    assert DECISION.optimised_measure(spec(max_fpr=0.2)) == "tpr"
    assert DECISION.optimised_measure(spec(min_tpr=0.8)) == "fpr"
    assert DECISION.optimised_measure(spec(max_fpr=0.2, min_tpr=0.8)) == "error"
    assert RISK.optimised_measure(spec(loss="logistic", max_fpr=0.2)) == "log-loss"


class HingeFamily(CardFamily):
    """A fourth family defined outside the package: the look-ups and the questions work."""

    name = "hinge"
    loss_name = "hinge"
    card_labels = ("hinge",)
    objective = "hinge loss"
    measures: ClassVar[tuple[str, ...]] = ("hinge", "n")

    def figures(self, card: Any, X: Any, y: Any) -> dict[str, float]:
        margins = (2 * np.asarray(y) - 1) * card.decision_function(X)
        return {"hinge": float(np.maximum(0, 1 - margins).mean())}


@pytest.mark.slow
def test_a_fourth_family_is_one_object(cards):
    """A family written in a test is chosen by its loss and its cards' label, answers every
    question the package's families answer, and leaves theirs as they were."""
    hinge, X, y = HingeFamily(), *cards["decision"][1:]
    families = (*FAMILIES, hinge)
    assert family_for(y, {"loss": "hinge"}, families) is hinge
    assert family_of_loss("hinge", families) is hinge
    assert family_for(y, {}, families) is DECISION
    card = cards["decision"][0]
    labelled = type("HingeCard", (), {"family": "hinge", "to_text": card.to_text})()
    assert family_of_card(labelled, families) is hinge
    assert hinge.card_text(labelled) == card.to_text()
    assert hinge.optimised_measure(None) == "hinge loss"
    assert not (hinge.predicts_risk or hinge.chooses_size_by_cv or hinge.samples_large_tables)
    assert hinge.figures(card, X, y)["hinge"] >= 0
    with pytest.raises(ValueError, match="unknown card family 'hinge'"):
        family_of_card(labelled)  # the package's own list is unchanged


def test_code_that_asks_the_family_serves_a_plugged_in_one(monkeypatch):
    """With a fourth family in the list, code that asks the family answers for it unchanged:
    the studio's words for what a solve optimises, and the re-check of a card's family."""
    from slimwidgets.core import family as families
    from slimwidgets.widgets.card_status import optimised_measure

    monkeypatch.setattr(families, "FAMILIES", (*FAMILIES, HingeFamily()))
    spec = SimpleNamespace(loss="hinge", max_fpr=None, min_tpr=None)
    assert optimised_measure(spec) == "hinge loss"
    assert family_of_card(SimpleNamespace(family="hinge")).name == "hinge"
    assert optimised_measure(SimpleNamespace(loss="zero_one", max_fpr=0.1, min_tpr=None)) == "tpr"


class PlainFamily(HingeFamily):
    """A fourth family with its own exports: its cards are written by the family, not by a
    ``to_<format>`` method of the card."""

    name = "plain"
    loss_name = "plain"
    card_labels = ("plain",)
    export_formats: ClassVar[tuple[str, ...]] = ("text", "markdown", "json")

    def export(self, card: Any, fmt: str, **options: Any) -> str:
        if fmt not in self.export_formats:
            raise ValueError(f"plain cards are not written as {fmt!r}")
        return f"{fmt}: {card.points}"


def test_report_and_exports_ask_the_family_of_a_plugged_in_one(monkeypatch, tmp_path):
    """``sw.report``, the CLI's and the studio's exports reach a family written in a test through
    its own methods: none of them reads its name or its card's type."""
    from slimwidgets.cli import render
    from slimwidgets.core import family as families
    from slimwidgets.widgets.exports import export_card

    plain = PlainFamily()
    asked: list[tuple] = []

    def builder(card: Any, X: Any, y: Any, **options: Any) -> str:
        asked.append((card, X, y, options))
        return "<!DOCTYPE html><p>plain</p>"

    plain.reports_with(builder)
    monkeypatch.setattr(families, "FAMILIES", (*FAMILIES, plain, HingeFamily()))
    card = SimpleNamespace(family="plain", points={"a": 2})
    assert sw.report(card, "X", "y", bootstrap=3, title="T") == "<!DOCTYPE html><p>plain</p>"
    ((got, X, y, options),) = asked
    assert (got, X, y) == (card, "X", "y")
    assert options["bootstrap"] == 3 and options["title"] == "T" and options["test"] is None
    assert render(card, "markdown") == "markdown: {'a': 2}"
    path, _ = export_card(card, "json", tmp_path / "card.json")
    assert path.read_text(encoding="utf-8") == "json: {'a': 2}\n"
    with pytest.raises(ValueError, match="plain cards are not written as 'sql'"):
        render(card, "sql")
    with pytest.raises(TypeError, match="no validation report is registered for hinge cards"):
        sw.report(SimpleNamespace(family="hinge"), "X", "y")  # a family without a report
    monkeypatch.setattr(families, "FAMILIES", FAMILIES)
    with pytest.raises(TypeError, match="must be a ScoringSystem or SurvivalCard"):
        sw.report(card, "X", "y")  # a card no family of the package makes


@pytest.mark.slow
def test_the_package_families_write_their_reports_and_exports_through_one_method(cards):
    """Each built-in family's report builder is registered by the report's floor, and its
    ``export`` is the card's own ``to_<format>``: the entry points changed nothing."""
    from slimwidgets.reporting.document import scoring_report
    from slimwidgets.reporting.survival_document import survival_family_report

    assert DECISION.report_builder is RISK.report_builder is scoring_report
    assert TIME_TO_EVENT.report_builder is survival_family_report
    for card, _, _ in cards.values():
        family = family_of_card(card)
        for fmt in ("text", "markdown", "latex", "sql"):
            assert family.export(card, fmt) == getattr(card, f"to_{fmt}")(), (family, fmt)
    with pytest.raises(ValueError, match="time_to_event cards are not written as 'pdf'"):
        TIME_TO_EVENT.export(cards["time_to_event"][0], "pdf")


class TallyCard:
    """A card of the tally family: positive when at least ``k`` of the 0/1 columns are 1."""

    family = "tally"

    def __init__(self, names: list[str], k: int, error: float) -> None:
        self.names, self.k, self.error = names, k, error

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return (X[self.names].to_numpy().sum(axis=1) >= self.k).astype(int)

    def to_text(self) -> str:
        return f"positive when at least {self.k} of {', '.join(self.names)}"

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "names": self.names, "k": self.k, "error": self.error}

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, verify: bool = True) -> TallyCard:
        if verify and not (isinstance(d.get("k"), int) and isinstance(d.get("names"), list)):
            raise ValueError("a tally card needs an integer k and a list of names")
        return cls(d["names"], d["k"], d["error"])


def fit_tally(X: pd.DataFrame, y: Any, *, loss: str, sample_weight: Any = None) -> TallyCard:
    """The tally card of least weighted error: every ``k`` from 0 to the number of columns."""
    assert loss == "tally"
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    counts, y = X.to_numpy().sum(axis=1), np.asarray(y)
    errors = [float((w * ((counts >= k) != y)).sum() / w.sum()) for k in range(X.shape[1] + 1)]
    k = int(np.argmin(errors))
    return TallyCard(list(X.columns), k, errors[k])


class TallyFamily(HingeFamily):
    """A fourth family with its own driver, card class, words and studio, all registered."""

    name = "tally"
    loss_name = "tally"
    card_labels = ("tally",)
    objective = "error"
    export_formats: ClassVar[tuple[str, ...]] = ("text",)


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> TallyFamily:
    """The tally family registered in the package's list (for this test only)."""
    from slimwidgets.core import family as families
    from slimwidgets.core.card_family import CardWords

    family = TallyFamily()
    family.fits_with(fit_tally)
    family.cards_are(TallyCard)
    family.says_with(
        CardWords(
            status=lambda card: f"error {card.error:.1%}, the best k of {len(card.names) + 1}",
            details=lambda card: f"k = {card.k}",
            degeneracy=lambda card: "counts no column" if card.k == 0 else None,
        )
    )
    family.opens_studio_with(lambda X, y, options: ("tally studio", X.shape, options))
    monkeypatch.setattr(families, "FAMILIES", (*FAMILIES, family))
    return family


def test_a_fourth_family_is_fitted_by_its_own_driver_through_fit(tally):
    """``sw.fit`` hands a fit whose loss the plugged-in family reads to its driver, with every
    option; the package's families keep their own drivers, and ``fit_dataset`` says plainly that
    a family without a table solve is fitted from X and y."""
    from slimwidgets.core.data import prepare_data
    from slimwidgets.fitting import fit_dataset

    X, y = _table(3)
    weights = np.linspace(1, 3, len(y))
    card = sw.fit(X, y, loss="tally", sample_weight=weights)
    assert isinstance(card, TallyCard) and family_of_card(card) is tally
    counts = X.to_numpy().sum(axis=1)
    for k in range(4):  # no other k has a smaller weighted error
        assert card.error <= (weights * ((counts >= k) != y)).sum() / weights.sum() + 1e-12
    assert card.error == pytest.approx((weights * (card.predict(X) != y)).sum() / weights.sum())
    assert sw.fit(X, y, max_size=1, time_limit=20).family == "slim"
    risk = sw.fit(X, y, spec=sw.make_spec(loss="logistic", max_size=1, time_limit=20))
    assert risk.family == "risk" and risk.multiplier is not None
    with pytest.raises(TypeError, match="tally cards are fitted from X and y by fit"):
        fit_dataset(prepare_data(X, y, warn=False), SimpleNamespace(loss="tally"))
    with pytest.raises(ValueError, match="hinge"):  # an unknown loss: refused naming it
        sw.fit(X, y, loss="hinge")


def test_a_fourth_family_s_card_file_and_status_lines_go_through_the_cli(tally, tmp_path, capsys):
    """``slimwidgets show`` reads a plugged-in family's card file through the family's card class
    and prints the family's status and details lines and its degeneracy warning."""
    from slimwidgets.cli import details_line, main, status_line

    X, y = _table(4)
    card = sw.fit(X, y, loss="tally")
    assert status_line(card) == f"status: error {card.error:.1%}, the best k of 4"
    assert details_line(card) == f"details: k = {card.k}"
    path = tmp_path / "tally.json"
    path.write_text(json.dumps(card.to_dict()), encoding="utf-8")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == [card.to_text(), status_line(card), details_line(card)]
    path.write_text(json.dumps({**card.to_dict(), "k": 0}), encoding="utf-8")
    assert main(["show", str(path)]) == 0
    assert "warning: the card counts no column" in capsys.readouterr().err
    path.write_text(json.dumps({**card.to_dict(), "k": "2"}), encoding="utf-8")
    assert main(["show", str(path)]) == 2
    assert "a tally card needs an integer k" in capsys.readouterr().err


def test_a_fourth_family_opens_the_studio_it_names(tally):
    """``sw.Studio`` asks the family of ``y`` and the options which studio to open: the one a
    plugged-in family registered, the time-to-event studio's factory for a ``Surv`` y, and the
    label cards' own (no factory) for decision and risk cards."""
    from slimwidgets.widgets.studio import Studio, _family_of_studio

    X, y = _table(5)
    opened = Studio(X, y, loss="tally", max_size=2)
    assert opened == ("tally studio", X.shape, {"loss": "tally", "max_size": 2})
    assert _family_of_studio(_surv(y), {}) is TIME_TO_EVENT and TIME_TO_EVENT.studio is not None
    for options in ({}, {"loss": "logistic"}, {"loss": "hinge"}):
        assert _family_of_studio(y, options).studio is None, options


@pytest.mark.slow
def test_the_package_s_card_files_are_read_by_their_family(cards):
    """Each built-in family reads its own card files back (the file's label chooses it); a file
    with no label is a decision card's, one with a label no family makes is refused naming the
    labels the card reader knows."""
    from slimwidgets.core.family import family_of_file

    for name, (card, _, _) in cards.items():
        d = json.loads(card.to_json())
        family = family_of_file(d)
        assert family is family_named(name)
        assert family.read_card(d).to_text() == card.to_text(), name
    assert family_of_file({"family": "tilm"}) is DECISION and family_of_file({}) is DECISION
    assert family_of_file([1]) is DECISION
    d = {**json.loads(cards["decision"][0].to_json()), "family": "tally"}
    with pytest.raises(ValueError, match="unknown model family 'tally'"):
        family_of_file(d).read_card(d, verify=False)


class NarrowFamily(type(DECISION)):  # type: ignore[misc]
    """A fourth family of decision cards whose loss holds its own MIP/LP (the decision
    program with one named rule left out), a scan and a floor that note what they were asked."""

    name = "narrow"
    loss_name = "narrow"

    def __init__(self, left_out: str) -> None:
        super().__init__()
        self.left_out, self.built = left_out, []

        def problem(data: Any, spec: Any) -> Any:
            self.built.append(spec)
            return DECISION.loss.problem(data, replace(spec, exclude=(*spec.exclude, left_out)))

        def scan(form: Any, *args: Any, **kwargs: Any) -> Any:
            self.scanned.append(form.spec)
            return DECISION.loss.scan(form, *args, **kwargs)

        def floor(form: Any) -> float:
            self.floored.append(form.spec)
            return DECISION.loss.floor(form)

        self.scanned: list[Any] = []
        self.floored: list[Any] = []
        value = DECISION.loss.piece("value")
        self.loss.holds(value=value, problem=problem, scan=scan, floor=floor)
        self.fits_with(DECISION.driver)
        self.says_with(DECISION.words)


def test_the_driver_solves_the_program_the_family_s_loss_builds(monkeypatch):
    """A fit of the fourth family's loss is solved on the program its loss registered (the
    decision program without the rule the decision card leans on most), not on the decision
    family's: that rule gets no points, the error is no better, and the card is re-checked; a
    solve by the scan runs the scan its loss registered, on that program."""
    from slimwidgets.core import family as families
    from slimwidgets.core.data import prepare_data
    from slimwidgets.fitting import fit_dataset

    X, y = _table(3)
    spec = sw.make_spec(max_size=2, time_limit=20)
    decision = sw.fit(X, y, spec=spec)
    points = dict(zip(decision.feature_names, decision.coefficients))
    leaned_on = max(points, key=lambda name: abs(points[name]))
    assert points[leaned_on] != 0
    narrow = NarrowFamily(leaned_on)
    monkeypatch.setattr(families, "FAMILIES", (narrow, *FAMILIES))
    card = fit_dataset(prepare_data(X, y, warn=False), replace(spec, loss="narrow"))
    assert len(narrow.built) == 1 and narrow.built[0].loss == "narrow"
    assert dict(zip(card.feature_names, card.coefficients))[leaned_on] == 0
    assert card.status == decision.status == "optimal"
    assert card.metrics(X, y).error >= decision.metrics(X, y).error - 1e-12
    assert narrow.scanned == []  # "auto" proved these few cards without the scan
    scanned = fit_dataset(
        prepare_data(X, y, warn=False), replace(spec, loss="narrow", solver="scan")
    )
    assert len(narrow.scanned) == 1 and narrow.scanned[0].exclude[-1] == leaned_on
    assert scanned.status == "optimal" and scanned.objective == pytest.approx(card.objective)


def test_the_driver_asks_the_family_s_loss_for_the_floor_under_a_cap(monkeypatch):
    """Under a max-FPR cap, a proof past the walk's reach (its work limit set to 0) starts from
    the floor the family's loss registered, on the program that loss built."""
    from slimwidgets.core import family as families
    from slimwidgets.core.data import prepare_data
    from slimwidgets.fitting import driver, fit_dataset

    X, y = _table(3)
    narrow = NarrowFamily("smoker")
    monkeypatch.setattr(families, "FAMILIES", (narrow, *FAMILIES))
    monkeypatch.setattr(driver, "ENUMERATION_WORK", 0)
    spec = sw.make_spec(max_size=2, max_fpr=0.3, time_limit=20, loss="zero_one")
    card = fit_dataset(prepare_data(X, y, warn=False), replace(spec, loss="narrow"))
    assert len(narrow.floored) == 1 and narrow.floored[0].exclude == ("smoker",)
    assert (
        card.status == "optimal" and dict(zip(card.feature_names, card.coefficients))["smoker"] == 0
    )


def test_a_loss_holds_the_pieces_registered_on_it():
    """Each package family's loss answers its value; the decision family's its MIP/LP; a piece
    nobody registered is refused naming the family."""
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.core.losses import LogisticLoss, ZeroOneLoss
    from slimwidgets.solvers.lexicographic import knapsack_floor
    from slimwidgets.solvers.scan import solve_by_scan

    assert DECISION.loss.piece("value") is ZeroOneLoss and RISK.loss.piece("value") is LogisticLoss
    assert DECISION.loss.piece("problem") is build_formulation
    assert DECISION.loss.piece("scan") is solve_by_scan
    assert DECISION.loss.piece("floor") is knapsack_floor
    assert TIME_TO_EVENT.loss.has("value") and not RISK.loss.has("problem")
    with pytest.raises(TypeError, match="no problem piece of the loss is registered for risk"):
        RISK.loss.problem(None, None)
    assert HingeFamily().loss is not HingeFamily().loss  # each family object holds its own
