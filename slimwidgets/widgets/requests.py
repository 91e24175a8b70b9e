"""What the studio's panels ask of its controller: the controls, the feature panel's settings,
the export toolbar, and the requests of the browser views (declared in ``protocol.json``, run
by :class:`~slimwidgets.widgets.protocol.Dispatcher`): the card's edits (points, threshold,
bands, locks, undo/redo), the cut-point panel's edits and the clicks on a chart or an
alternative. A part of :class:`~slimwidgets.widgets.studio.Studio`: it reads the Studio's
``controller``, ``guard`` and ``say_refused`` (a refused call said in the message line),
``syncing``, ``cuts_view`` and its refreshers."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .exports import EXPORT_FORMATS

if TYPE_CHECKING:
    from .studio import Studio

__all__ = ["ViewRequests", "CUT_EDITS"]

#: the cut-point panel's edits whose refusal the panel says beside the variable
CUT_EDITS = ("add", "move", "remove")


def _rank_loader(controller: Any) -> Any:
    """The alternatives list's handler: load the clicked row's card (a rank is a whole number)."""

    def load(rank: Any) -> Any:
        if isinstance(rank, bool) or not isinstance(rank, int):
            raise TypeError(f"an alternative is chosen by its rank, a whole number, got {rank!r}")
        return controller.load_alternative(rank)

    return load


class ViewRequests:
    """The handlers of the studio's controls and views (see the module's docstring); the
    widgets they answer are built by :class:`~slimwidgets.widgets.layout.StudioLayout`.

    Parameters
    ----------
    studio : the studio whose controls and views these handlers answer.
    """

    def __init__(self, studio: Studio) -> None:
        self._s = studio

    def on_feature(self, name: str, key: str, change) -> None:
        if self._s.syncing:
            return
        new = change["new"]
        if key == "use":
            self._s.guard(self._s.controller.set_feature, name, use=new)
        elif key == "sign":
            self._s.guard(self._s.controller.set_feature, name, sign=new)
        elif key == "range":
            self._s.guard(self._s.controller.set_feature, name, points_range=new)
        elif key == "penalty":
            text = new.strip()
            if text.lower() in ("", "auto", "c0"):
                self._s.guard(self._s.controller.set_feature, name, penalty=None)
            else:
                try:
                    value = float(text)
                except ValueError:
                    self._s.guard(
                        lambda: (_ for _ in ()).throw(
                            ValueError(f"the penalty of {name!r} must be a number, got {text!r}")
                        )
                    )
                    return
                self._s.guard(self._s.controller.set_feature, name, penalty=value)

    def on_cap(self, option: str, change) -> None:
        """A cap by variable typed beside max size (empty: no cap); refused text is said in the
        message line and the box shows the cap in force again."""
        if not self._s.syncing:
            self._s.guard(self._s.controller.set_caps, **{option: change["new"]})

    def on_family(self, change) -> None:
        if not self._s.syncing:
            self._s.guard(self._s.controller.set_family, change["new"])

    def on_fpr(self, _change) -> None:
        if self._s.syncing:
            return
        self._s.fpr_slider.disabled = self._s.fpr_none.value
        self._s.guard(
            self._s.controller.update,
            max_fpr=None if self._s.fpr_none.value else round(self._s.fpr_slider.value, 4),
        )

    def on_tpr(self, _change) -> None:
        if self._s.syncing:
            return
        self._s.tpr_slider.disabled = self._s.tpr_none.value
        self._s.guard(
            self._s.controller.update,
            min_tpr=None if self._s.tpr_none.value else round(self._s.tpr_slider.value, 4),
        )

    def on_size(self, _change) -> None:
        if self._s.syncing:
            return
        self._s.size_slider.disabled = self._s.size_none.value
        self._s.guard(
            self._s.controller.update,
            max_size=None if self._s.size_none.value else int(self._s.size_slider.value),
        )

    def on_c0(self, change) -> None:
        if self._s.syncing:
            return
        text = change["new"].strip()
        if text.lower() in ("", "auto"):
            self._s.guard(self._s.controller.update, C0=None)
            return
        try:
            value = float(text)
        except ValueError:
            self._s.guard(
                lambda: (_ for _ in ()).throw(
                    ValueError(f"C0 must be a number >= 0 or 'auto', got {text!r}")
                )
            )
            return
        self._s.guard(self._s.controller.update, C0=value)

    def on_range(self, change) -> None:
        if not self._s.syncing:
            self._s.guard(self._s.controller.update, coef_range=list(change["new"]))

    def on_time(self, change) -> None:
        if not self._s.syncing:
            self._s.guard(self._s.controller.update, time_limit=float(change["new"]))

    def on_export_format(self, change) -> None:
        stem = Path(self._s.export_path.value or "scoring_system").with_suffix("")
        self._s.export_path.value = str(stem) + EXPORT_FORMATS[change["new"]]

    def export_clicked(self) -> None:
        got = self._s.guard(
            self._s.controller.export,
            self._s.export_format.value,
            self._s.export_path.value or None,
        )
        if got is not None:
            path, line = got
            self._s.message.value = (
                f"wrote <code>{html.escape(str(path))}</code> · reload: "
                f"<code class='sw-reload'>{html.escape(line)}</code>"
            )

    def view_handlers(self) -> dict[str, dict[str, Any]]:
        """For each view, a handler per request it sends (declared in ``protocol.json``)."""
        c = self._s.controller
        return {
            "card": {
                "edit": lambda feature, value: c.edit({feature: value}),
                "threshold": lambda value: c.edit(threshold=value),
                "lock": lambda feature: c.lock(feature),
                "unlock": lambda feature: c.unlock(feature),
                "band": lambda variable, band, value, label=None: c.edit_band(
                    variable, band, value, label
                ),
                "lock_variable": lambda variable: c.lock_variable(variable, True),
                "unlock_variable": lambda variable: c.lock_variable(variable, False),
                # the one-click fix pointed out beside the card
                "monotone": lambda variable, choice: c.set_monotone(variable, choice),
                "undo": lambda: c.undo(),
                "redo": lambda: c.redo(),
            },
            "cuts": {
                "add": lambda variable, value=None: c.add_cut(variable, value),
                "move": lambda variable, old=None, value=None: c.move_cut(variable, old, value),
                "remove": lambda variable, old=None: c.remove_cut(variable, old),
                "use": lambda variable, value=None: c.set_variable(variable, use=value),
                "sign": lambda variable, value=None: c.set_variable(variable, sign=value),
                "monotone": lambda variable, value=None: c.set_monotone(variable, value),
            },
            # a clicked point of the frontier or the path
            "chart": {"load": lambda key: c.load(key)},
            "alternatives": {"load": _rank_loader(c)},
        }

    def refused(self, view: str, kind: str, exc: BaseException) -> None:
        """A refused request is said in place: a cut edit in the panel, beside its variable
        (the controller keeps it in ``cut_errors``), anything else in the message line."""
        if not (view == "cuts" and kind in CUT_EDITS):
            self._s.say_refused(exc)

    def answered(self, view: str, kind: str, ok: bool) -> None:
        """After a request: the notice of what it changed; the card or the cut panel shows
        the truth again, even when the request was refused."""
        if ok:
            self._s.show_notice()
        if view == "card":
            self._s.refresh_card()
        elif view == "cuts":
            self.refresh_cuts()

    def refresh_cuts(self) -> None:
        if self._s.cuts_view is None:
            return
        with self._s.ui_lock:
            panel = self._s.controller.cut_panel()
            if self._s.cuts_view.variables != panel:
                self._s.cuts_view.variables = panel
