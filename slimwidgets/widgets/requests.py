"""What the studio's panels ask of its controller: the feature panel's settings, the card's
edits (points, threshold, bands, locks, undo/redo) and the cut-point panel's edits. A mixin of
:class:`~slimwidgets.widgets.studio.Studio`: it reads the Studio's ``controller``, ``_guard``
(a refused call said in the message line), ``_syncing``, ``cuts_view`` and its refreshers."""

from __future__ import annotations

__all__ = ["ViewRequests"]


class ViewRequests:
    """The handlers of the studio's panels (see the module's docstring)."""

    def _on_feature(self, name: str, key: str, change) -> None:
        if self._syncing:
            return
        new = change["new"]
        if key == "use":
            self._guard(self.controller.set_feature, name, use=new)
        elif key == "sign":
            self._guard(self.controller.set_feature, name, sign=new)
        elif key == "range":
            self._guard(self.controller.set_feature, name, points_range=new)
        elif key == "penalty":
            text = new.strip()
            if text.lower() in ("", "auto", "c0"):
                self._guard(self.controller.set_feature, name, penalty=None)
            else:
                try:
                    value = float(text)
                except ValueError:
                    self._guard(
                        lambda: (_ for _ in ()).throw(
                            ValueError(f"the penalty of {name!r} must be a number, got {text!r}")
                        )
                    )
                    return
                self._guard(self.controller.set_feature, name, penalty=value)

    def _on_cap(self, option: str, change) -> None:
        """A cap by variable typed beside max size (empty: no cap); refused text is said in the
        message line and the box shows the cap in force again."""
        if not self._syncing:
            self._guard(self.controller.set_caps, **{option: change["new"]})

    def _on_request(self, change) -> None:
        req = change["new"] or {}
        op = req.get("op")
        if op == "edit":
            self._guard(self.controller.edit, {req["feature"]: req["value"]})
        elif op == "threshold":
            self._guard(self.controller.edit, threshold=req["value"])
        elif op == "lock":
            self._guard(self.controller.lock, req["feature"])
        elif op == "unlock":
            self._guard(self.controller.unlock, req["feature"])
        elif op == "band":
            self._guard(
                self.controller.edit_band,
                req["variable"],
                req["band"],
                req["value"],
                req.get("label"),
            )
        elif op in ("lock_variable", "unlock_variable"):
            self._guard(self.controller.lock_variable, req["variable"], op == "lock_variable")
        elif op == "monotone":  # the one-click fix pointed out beside the card
            self._guard(self.controller.set_monotone, req["variable"], req["choice"])
        elif op == "undo":
            self.undo()
        elif op == "redo":
            self.redo()
        self._refresh_card()  # the table must show the truth even when a request was refused

    def _on_cuts_request(self, change) -> None:
        """An edit of the cut-point panel: a refused one is said in the
        panel, beside the variable."""
        req, c = change["new"] or {}, self.controller
        op, name = req.get("op"), req.get("variable")
        edits = {
            "add": lambda: c.add_cut(name, req.get("value")),
            "move": lambda: c.move_cut(name, req.get("old"), req.get("value")),
            "remove": lambda: c.remove_cut(name, req.get("old")),
            "use": lambda: c.set_variable(name, use=req.get("value")),
            "sign": lambda: c.set_variable(name, sign=req.get("value")),
            "monotone": lambda: c.set_monotone(name, req.get("value")),
        }
        if op in ("add", "move", "remove"):
            try:
                edits[op]()
            except (ValueError, KeyError, TypeError):
                pass  # said in place: the controller keeps it in cut_errors
            else:
                self._show_notice()
            self._refresh_cuts()
        elif op in edits:
            self._guard(edits[op])
            self._refresh_cuts()

    def _refresh_cuts(self) -> None:
        if self.cuts_view is None:
            return
        with self._ui_lock:
            panel = self.controller.cut_panel()
            if self.cuts_view.variables != panel:
                self.cuts_view.variables = panel
