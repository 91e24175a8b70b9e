"""What every card family answers: one object per family, asked instead of comparing names.

A family is one kind of card: decision cards (SLIM, the 0-1 loss), risk cards (the logistic
loss, a predicted risk per score) and time-to-event cards (Cox's partial likelihood). The fit
driver, the re-check, the card, its exports, the report and the studio ask the family of a
spec (:func:`~slimwidgets.core.family.family_of_loss`) or of a card
(:func:`~slimwidgets.core.family.family_of_card`); only those look-ups read names. A new family
is one subclass of :class:`CardFamily` and one entry of
:data:`~slimwidgets.core.family.FAMILIES`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple

import numpy as np

from .survival import is_survival_target

__all__ = ["CardFamily", "CardWords", "DEFAULT_LOSS", "FamilyLoss"]

#: the loss of a fit that names none (decision cards)
DEFAULT_LOSS = "zero_one"


class CardWords(NamedTuple):
    """What a card's status and details lines say, and what is degenerate about it.

    The floor that words cards (:mod:`slimwidgets.core.status`) sits above the family objects,
    so it hands its words to the families it words (:meth:`CardFamily.says_with`).

    Attributes
    ----------
    status : ``status(card) -> str``, what the card is and what is proven about it.
    details : ``details(card) -> str``, the solver's raw figures, labelled as such.
    degeneracy : ``degeneracy(card) -> str | None``, what makes the card useless, or None.
    """

    status: Callable[[Any], str]
    details: Callable[[Any], str]
    degeneracy: Callable[[Any], str | None]


class FamilyLoss:
    """A family's loss and the pieces its solvers build from it, each registered by the layer
    that defines it (:meth:`holds`) and asked of the family, never chosen by its name.

    The pieces:

    * ``value``: the loss of a card on the training rows (``value(data, ...)``, an object with
      the family's own evaluation and its per-coordinate scan; :mod:`slimwidgets.core.losses`);
    * ``problem``: the MIP/LP of a fit, ``problem(data, spec)`` (:mod:`~.formulation`);
      a family whose loss has none (risk cards) leaves it out, and code that needs a program
      asks :meth:`has` first;
    * ``prepare``: the rows and spec read for a family's own solvers, ``prepare(data, spec)``
      (the risk family's ``RiskProblem``, :mod:`slimwidgets.solvers.logistic`);
    * ``search``: an anytime search for a good card, ``search(problem, ...)``;
    * ``walk``: every card of a small box, a proof, ``walk(problem, ...)``;
    * ``scan``: the proof by a scan of the supports, ``scan(problem, ...)``
      (:mod:`slimwidgets.solvers.scan`; :mod:`slimwidgets.solvers.risk_branch_and_bound`);
    * ``floor``: a proven floor under the objective, ``floor(problem, ...)``
      (:mod:`slimwidgets.solvers.lexicographic`);
    * ``bound``: a proven floor from cutting planes, ``bound(problem, ...)``;
    * ``cells``: the floor of every support from its cells of rows, ``cells(bits, ...)``;
    * ``cone``: the floor of a node's box of points (and multipliers), ``cone(columns, ...)``.

    A piece is a function, or an object whose call is the piece and whose methods answer what a
    fit asks before calling it (the risk family's ``walk`` its ``work``, its ``scan`` whether it
    ``declines`` a problem). A piece no module registered is refused by name when asked for.

    Parameters
    ----------
    family : the family's name, as messages say it.

    Examples
    --------
    >>> loss = FamilyLoss("bare")
    >>> loss.holds(value=len)
    >>> loss.value([0, 1, 1])
    3
    >>> loss.has("problem")
    False
    >>> loss.problem(None, None)
    Traceback (most recent call last):
    ...
    TypeError: no problem piece of the loss is registered for bare cards (see FamilyLoss.holds)
    """

    #: the pieces a loss may hold
    PIECES: ClassVar[tuple[str, ...]] = (
        "value", "problem", "prepare", "search", "walk", "scan", "floor", "bound", "cells",
        "cone",
    )  # fmt: skip

    def __init__(self, family: str) -> None:
        self.family = family
        self._pieces: dict[str, Callable[..., Any]] = {}

    def holds(self, **pieces: Callable[..., Any]) -> None:
        """Register ``pieces`` (each a name of :attr:`PIECES` and the function it is).

        Parameters
        ----------
        **pieces : each a name of :attr:`PIECES` (``value=``, ``problem=``, ...) and its
            function.

        Examples
        --------
        >>> FamilyLoss("bare").holds(gradient=len)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: a loss holds value, problem, ..., cone; not 'gradient'
        """
        for name, piece in pieces.items():
            if name not in self.PIECES:
                raise ValueError(f"a loss holds {', '.join(self.PIECES)}; not {name!r}")
            self._pieces[name] = piece

    def has(self, name: str) -> bool:
        """Whether the piece ``name`` is registered."""
        return name in self._pieces

    def piece(self, name: str) -> Any:
        """The registered piece ``name`` (``TypeError`` naming the family when none is): a
        function, or an object whose methods a fit asks before calling it."""
        if name not in self._pieces:
            raise TypeError(
                f"no {name} piece of the loss is registered for {self.family} cards "
                "(see FamilyLoss.holds)"
            )
        return self._pieces[name]

    def value(self, *args: Any, **kwargs: Any) -> Any:
        """The loss of a card on the training rows: the registered ``value`` piece's answer."""
        return self.piece("value")(*args, **kwargs)

    def problem(self, data: Any, spec: Any) -> Any:
        """The MIP/LP of fitting ``spec`` on ``data``: the registered ``problem`` piece's."""
        return self.piece("problem")(data, spec)

    def prepare(self, data: Any, spec: Any) -> Any:
        """``data`` and ``spec`` read for the family's own solvers: the ``prepare`` piece's."""
        return self.piece("prepare")(data, spec)

    def search(self, *args: Any, **kwargs: Any) -> Any:
        """An anytime search for a good card: the registered ``search`` piece's answer."""
        return self.piece("search")(*args, **kwargs)

    def walk(self, *args: Any, **kwargs: Any) -> Any:
        """Every card of a small box walked, a proof: the registered ``walk`` piece's answer."""
        return self.piece("walk")(*args, **kwargs)

    def scan(self, *args: Any, **kwargs: Any) -> Any:
        """The proof by a scan of the supports: the registered ``scan`` piece's answer."""
        return self.piece("scan")(*args, **kwargs)

    def floor(self, *args: Any, **kwargs: Any) -> Any:
        """A proven floor under the objective: the registered ``floor`` piece's answer."""
        return self.piece("floor")(*args, **kwargs)

    def bound(self, *args: Any, **kwargs: Any) -> Any:
        """A proven floor from cutting planes: the registered ``bound`` piece's answer."""
        return self.piece("bound")(*args, **kwargs)

    def cells(self, *args: Any, **kwargs: Any) -> Any:
        """The floor of every support over its cells: the registered ``cells`` piece's answer."""
        return self.piece("cells")(*args, **kwargs)

    def cone(self, *args: Any, **kwargs: Any) -> Any:
        """The floor of a node's box of points: the registered ``cone`` piece's answer."""
        return self.piece("cone")(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<loss of {self.family} cards: {', '.join(self._pieces) or 'no pieces'}>"


class CardFamily(ABC):
    """One kind of card: the ``y`` and ``loss`` it reads, its figures, its words, its views.

    Subclasses set the class attributes and :meth:`figures`; the rest has defaults that say
    "no" to what only some families do.

    Examples
    --------
    >>> from slimwidgets.core.family import DECISION, RISK
    >>> DECISION.reads([0, 1], {}), RISK.reads([0, 1], {}), RISK.reads([0, 1], {"loss": "logistic"})
    (True, False, True)
    """

    #: the family's name, as the studio and reports say it
    name: ClassVar[str]
    #: the ``loss`` option that asks for this family
    loss_name: ClassVar[str]
    #: the labels a card of this family carries in its ``family`` field
    card_labels: ClassVar[tuple[str, ...]]
    #: the figure its cards minimise, in the user's words
    objective: ClassVar[str]
    #: the figures shown beside a card, train and held out, as named on :class:`Metrics`
    measures: ClassVar[tuple[str, ...]] = ()
    #: whether a card's score maps to a predicted risk (a multiplier, a risk per score)
    predicts_risk: ClassVar[bool] = False
    #: whether monotone settings may need rows between a variable's bands
    holds_band_rows: ClassVar[bool] = False
    #: whether its own search holds rows per group, so no solver needs refusing for them
    search_holds_groups: ClassVar[bool] = False
    #: whether ``fit`` chooses the size by cross-validation when it builds the rules itself
    chooses_size_by_cv: ClassVar[bool] = False
    #: whether that choice also weighs more candidate cut points per numeric column
    chooses_cuts_by_cv: ClassVar[bool] = False
    #: what :meth:`held_out_score` measures, in the user's words (the size choice compares it)
    held_out_measure: ClassVar[str] = ""
    #: whether many 0/1 rows are searched on a sample and re-scored on all of them
    samples_large_tables: ClassVar[bool] = False
    #: the formats its cards are written in (:meth:`export`), each a ``to_<format>`` of the card
    export_formats: ClassVar[tuple[str, ...]] = (
        "text", "markdown", "html", "latex", "python", "sql", "json",
    )  # fmt: skip
    #: what writes this family's validation report (:meth:`reports_with` sets it)
    report_builder: Callable[..., str] | None = None
    #: what measures its cards on rows with intervals (:meth:`validates_with` sets it)
    validator: Callable[..., Any] | None = None
    #: how its cards are fitted from ``X, y``: the one way into ``fit`` (:meth:`fits_with`)
    driver: Callable[..., Any] | None = None
    #: the class of its cards, which reads them from their files (:meth:`cards_are`)
    card_type: Any = None
    #: its cards' status and details lines (:meth:`says_with`)
    words: CardWords | None = None
    #: what opens its studio, ``studio(X, y, options)`` (:meth:`opens_studio_with`); None: the
    #: studio of label cards
    studio: Callable[..., Any] | None = None

    def __init__(self) -> None:
        #: its loss and the pieces its solvers build from it (:class:`FamilyLoss`)
        self.loss = FamilyLoss(self.name)

    def reads(self, y: Any, options: Mapping[str, Any]) -> bool:
        """Whether a fit of ``y`` under ``options`` is this family's: labels (not a ``Surv``
        array) and its ``loss`` (decision cards' when none is given)."""
        return not is_survival_target(y) and options.get("loss", DEFAULT_LOSS) == self.loss_name

    def makes(self, card: Any) -> bool:
        """Whether ``card`` is one of this family's cards (by its ``family`` label)."""
        return getattr(card, "family", None) in self.card_labels

    def optimised_measure(self, spec: Any) -> str:
        """The figure a solve of ``spec`` optimises, as a user reads it."""
        return self.objective

    @abstractmethod
    def figures(self, card: Any, X: Any, y: Any) -> dict[str, float]:
        """The card's figures on ``X, y``, in the user's units."""

    def row_losses(self, card: Any, X: Any, y: Any) -> Any:
        """Each row's loss under ``card``: what :meth:`held_out_score` averages. Families that
        choose their size by cross-validation answer it; the others have no held-out score."""
        raise TypeError(f"{self.name} cards have no held-out score")

    def held_out_score(
        self, card: Any, X: Any, y: Any, sample_weight: Any = None, class_weights: Any = None
    ) -> float:
        """The score of ``card`` on held-out rows ``X, y`` that choices by cross-validation
        compare (lower is better): the mean of :meth:`row_losses`, each row weighed as a fit
        weighs it (``sample_weight`` times its class's weight under ``class_weights``).

        Parameters
        ----------
        card : a card of this family.
        X, y : the held-out rows and their labels.
        sample_weight : one weight per row (None: one each).
        class_weights : None, ``"balanced"`` (each class weighs as much in all) or
            ``(negative, positive)`` weights, as for :func:`slimwidgets.fit`.

        Returns
        -------
        float
            The weighted mean loss, in the units of :attr:`held_out_measure`.

        Examples
        --------
        >>> from slimwidgets.core.family import DECISION
        >>> from slimwidgets.core.scoring import ScoringSystem
        >>> card = ScoringSystem(("a",), (1,), -1)  # positive when a = 1
        >>> X, y = [[1], [0], [0], [0]], [1, 1, 0, 0]
        >>> DECISION.held_out_score(card, X, y), DECISION.held_out_score(card, X, y, None, (1, 3))
        (0.25, 0.375)
        """
        losses = np.asarray(self.row_losses(card, X, y), dtype=float)
        weight = np.ones(len(losses)) if sample_weight is None else np.asarray(sample_weight, float)
        if class_weights is not None:
            positive = np.asarray(y, dtype=object) == card.positive
            if class_weights == "balanced":  # every class weighs as much as the other in all
                per_class = [1 / max(weight[positive == c].sum(), 1e-300) for c in (False, True)]
            else:
                per_class = [float(class_weights[0]), float(class_weights[1])]
            weight = weight * np.where(positive, per_class[1], per_class[0])
        return float(np.average(losses, weights=weight))

    def held_out_words(self, value: float) -> str:
        """A held-out score in the user's units (the card's CV line, the size choice's notice).

        Parameters
        ----------
        value : float
            A value of :meth:`held_out_score`.

        Returns
        -------
        str
            The value as a user reads it.

        Examples
        --------
        >>> from slimwidgets.core.family import DECISION, RISK
        >>> DECISION.held_out_words(0.2125), RISK.held_out_words(0.51234)
        ('21.2 %', '0.5123')
        """
        return f"{value:.4f}"

    def card_text(self, card: Any) -> str:
        """The card as plain text (its own ``to_text``)."""
        return card.to_text()

    def card_html(self, card: Any) -> str:
        """The card as an HTML fragment, every name from data escaped (its own ``to_html``)."""
        return card.to_html(document=False)

    def export(self, card: Any, fmt: str, **options: Any) -> str:
        """``card`` written as ``fmt``: what the CLI and the studio's exports ask for.

        Parameters
        ----------
        card : a card of this family.
        fmt : one of :attr:`export_formats`.
        **options : the format's own keywords (``table`` of ``sql``, ...).

        Returns
        -------
        str
            The text of the export (every name from data escaped for its format).

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> from slimwidgets.core.family import DECISION
        >>> DECISION.export(SimpleNamespace(to_text=lambda: "score: 0"), "text")
        'score: 0'
        >>> DECISION.export(None, "pdf")
        Traceback (most recent call last):
        ...
        ValueError: decision cards are not written as 'pdf'
        """
        if fmt not in self.export_formats:
            raise ValueError(f"{self.name} cards are not written as {fmt!r}")
        return getattr(card, f"to_{fmt}")(**options)

    def reports_with(self, builder: Callable[..., str]) -> None:
        """Make ``builder`` write this family's validation reports (:meth:`report`).

        The report sits on a floor above ``core/`` (:mod:`slimwidgets.reporting`), so it
        registers its builders here when it is imported; a family defined elsewhere may
        register its own, or override :meth:`report`.

        Parameters
        ----------
        builder : ``builder(card, X, y, **options) -> str``, the HTML document, taking every
            keyword of :func:`slimwidgets.report`.

        Examples
        --------
        >>> from slimwidgets.core.family import DECISION
        >>> import slimwidgets.reporting.document  # registers the package's builders
        >>> DECISION.report_builder.__name__
        'scoring_report'
        """
        self.report_builder = builder

    def report(self, card: Any, X: Any, y: Any, **options: Any) -> str:
        """The validation report of ``card`` on its rows ``X, y``: an HTML document.

        Parameters
        ----------
        card : a card of this family.
        X, y : its training rows.
        **options : every keyword of :func:`slimwidgets.report` (``test``, ``bootstrap``, ...).

        Returns
        -------
        str
            The HTML document.

        Examples
        --------
        >>> from slimwidgets.core.card_family import CardFamily
        >>> class Bare(CardFamily):
        ...     name, loss_name, card_labels, objective = "bare", "bare", ("bare",), "loss"
        ...     def figures(self, card, X, y):
        ...         return {}
        >>> Bare().report(None, [], [])
        Traceback (most recent call last):
        ...
        TypeError: no validation report is registered for bare cards (see reports_with)
        """
        if self.report_builder is None:
            raise TypeError(
                f"no validation report is registered for {self.name} cards (see reports_with)"
            )
        return self.report_builder(card, X, y, **options)

    def validates_with(self, validator: Callable[..., Any]) -> None:
        """Make ``validator`` measure this family's cards on rows (:meth:`validate`).

        The figures with intervals sit on a floor above ``core/`` (:mod:`slimwidgets.toolbox`),
        which registers the package's own when it is imported; a family defined elsewhere may
        register its own, or override :meth:`validate`.

        Parameters
        ----------
        validator : ``validator(card, X, y, **options)``, the card's figures on ``X, y``, taking
            the keywords of :func:`slimwidgets.validate` the family takes.

        Examples
        --------
        >>> from slimwidgets.core.family import DECISION, TIME_TO_EVENT
        >>> import slimwidgets.toolbox.validate  # registers the package's validators
        >>> DECISION.validator.__name__, TIME_TO_EVENT.validator.__name__
        ('validate_labels', 'validate_survival')
        """
        self.validator = validator

    def validate(self, card: Any, X: Any, y: Any, **options: Any) -> Any:
        """The figures of ``card`` on the rows ``X, y``, with their intervals.

        Parameters
        ----------
        card : a card of this family.
        X, y : the rows (held out, or another site's) and their target.
        **options : the keywords of :func:`slimwidgets.validate` (``groups``, ``label``, ...).

        Returns
        -------
        The family's validation (:class:`~slimwidgets.toolbox.validate.Validation` for label
        cards).

        Examples
        --------
        >>> from slimwidgets.core.card_family import CardFamily
        >>> class Bare(CardFamily):
        ...     name, loss_name, card_labels, objective = "bare", "bare", ("bare",), "loss"
        ...     def figures(self, card, X, y):
        ...         return {}
        >>> Bare().validate(None, [], [])
        Traceback (most recent call last):
        ...
        TypeError: no validation is registered for bare cards (see validates_with)
        """
        if self.validator is None:
            raise TypeError(
                f"no validation is registered for {self.name} cards (see validates_with)"
            )
        return self.validator(card, X, y, **options)

    def fits_with(self, driver: Callable[..., Any]) -> None:
        """Make ``driver`` fit this family's cards: :func:`slimwidgets.fit` hands it every fit
        whose ``y`` and options this family reads (:meth:`fit`).

        The drivers sit on a floor above ``core/`` (:mod:`slimwidgets.fitting`), which registers
        the package's own when it is imported; a family defined elsewhere registers its own.

        Parameters
        ----------
        driver : ``driver(X, y, **options) -> card``, taking every keyword of
            :func:`slimwidgets.fit` that the family takes.

        Examples
        --------
        >>> import slimwidgets.fitting  # registers the package's drivers
        >>> from slimwidgets.core.family import DECISION, TIME_TO_EVENT
        >>> type(DECISION.driver).__name__, TIME_TO_EVENT.driver.__name__
        ('LabelsDriver', 'fit_survival')
        """
        self.driver = driver

    def fit(self, X: Any, y: Any, **options: Any) -> Any:
        """A card of this family fitted on ``X, y`` by its driver (:meth:`fits_with`).

        Parameters
        ----------
        X, y : the rows and the target, as :func:`slimwidgets.fit` takes them.
        **options : the fit's options.

        Returns
        -------
        A card of this family.

        Examples
        --------
        >>> from slimwidgets.core.card_family import CardFamily
        >>> class Bare(CardFamily):
        ...     name, loss_name, card_labels, objective = "bare", "bare", ("bare",), "loss"
        ...     def figures(self, card, X, y):
        ...         return {}
        >>> Bare().fit([[0]], [1])
        Traceback (most recent call last):
        ...
        TypeError: no driver is registered for bare cards (see fits_with)
        """
        if self.driver is None:
            raise TypeError(f"no driver is registered for {self.name} cards (see fits_with)")
        return self.driver(X, y, **options)

    def cards_are(self, card_type: Any) -> None:
        """Make ``card_type`` this family's card class: :meth:`read_card` asks its
        ``from_dict``. Each card module registers its class when it is imported.

        Parameters
        ----------
        card_type : a class with ``from_dict(d, verify=...)``.

        Examples
        --------
        >>> from slimwidgets.core.family import RISK
        >>> import slimwidgets.core.scoring  # registers ScoringSystem
        >>> RISK.card_type.__name__
        'ScoringSystem'
        """
        self.card_type = card_type

    def read_card(self, d: Mapping[str, Any], verify: bool = True) -> Any:
        """The card in ``d``, the JSON object of a card file of this family, every field checked.

        Parameters
        ----------
        d : the card file's JSON object.
        verify : whether its checksum must match its content.

        Returns
        -------
        A card of this family (``ValueError`` naming what is wrong with ``d``).

        Examples
        --------
        >>> from slimwidgets.core.family import DECISION
        >>> DECISION.read_card({"family": "slim"})
        Traceback (most recent call last):
        ...
        ValueError: not a slimwidgets scoring system (no package/schema_version fields)
        """
        if self.card_type is None:
            raise TypeError(f"no card class is registered for {self.name} cards (see cards_are)")
        return self.card_type.from_dict(d, verify=verify)

    def says_with(self, words: CardWords) -> None:
        """Make ``words`` write this family's status and details lines (:meth:`status_words`).

        Parameters
        ----------
        words : the three functions of a :class:`CardWords`.

        Examples
        --------
        >>> from slimwidgets.core.family import DECISION
        >>> import slimwidgets.core.status  # registers the words of label cards
        >>> DECISION.words.status.__name__
        'headline_of'
        """
        self.words = words

    def status_words(self, card: Any) -> str:
        """What ``card`` is and what is proven about it, in the user's units (one line)."""
        return self._words().status(card)

    def details_words(self, card: Any) -> str:
        """The solver's raw figures of ``card`` (status word, objective, bound, time)."""
        return self._words().details(card)

    def degeneracy(self, card: Any) -> str | None:
        """What makes ``card`` useless (one class for every row), or None."""
        return self._words().degeneracy(card)

    def _words(self) -> CardWords:
        if self.words is None:
            raise TypeError(f"no card words are registered for {self.name} cards (see says_with)")
        return self.words

    def opens_studio_with(self, studio: Callable[..., Any]) -> None:
        """Make ``studio(X, y, options)`` open this family's studio: ``sw.Studio(X, y)`` asks
        the family ``y`` and the options read as. The studio's floor (:mod:`slimwidgets.widgets`)
        registers the package's own.

        Parameters
        ----------
        studio : ``studio(X, y, options) -> widget``; ``options`` is a dict of the studio's
            other keywords.

        Examples
        --------
        >>> import slimwidgets.widgets.studio  # registers the time-to-event studio
        >>> from slimwidgets.core.family import DECISION, TIME_TO_EVENT
        >>> DECISION.studio is None, TIME_TO_EVENT.studio is not None
        (True, True)
        """
        self.studio = studio

    def __repr__(self) -> str:
        return f"<{self.name} cards, loss={self.loss_name!r}>"
