"""How the controller answers for its feature objects: each public name a feature serves (e.g.
``controller.undo``) is declared once, in a table on the class, and read from the feature object
that holds it (``controller.undo_redo.undo``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Forwarded", "forwards"]


class Forwarded:
    """One public name of a class answered by one of its feature objects.

    Parameters
    ----------
    feature : the attribute holding the feature object (e.g. ``"undo_redo"``).
    kind : the feature's class, whose own member (its docstring) the class shows.
    name : the member's name, on the class and on the feature.

    Examples
    --------
    >>> class Counter:
    ...     def up(self) -> int:
    ...         '''One more.'''
    ...         self.n = getattr(self, "n", 0) + 1
    ...         return self.n
    >>> class Host:
    ...     up = Forwarded("counter", Counter, "up")
    ...     def __init__(self):
    ...         self.counter = Counter()
    >>> Host().up(), Host.up.__doc__
    (1, 'One more.')
    """

    def __init__(self, feature: str, kind: type, name: str) -> None:
        self.feature, self.kind, self.name = feature, kind, name
        # what help() and the docs say of a name the feature keeps as a plain attribute
        self.__doc__ = f"``{name}`` of :class:`~{kind.__module__}.{kind.__qualname__}`."

    def __get__(self, owner: Any, cls: type | None = None) -> Any:
        if owner is None:  # on the class: the feature's own member, for help() and the docs
            return getattr(self.kind, self.name, self)
        return getattr(getattr(owner, self.feature), self.name)

    def __set__(self, owner: Any, value: Any) -> None:
        setattr(getattr(owner, self.feature), self.name, value)  # the feature keeps the state


def forwards(**features: tuple[type, str]) -> Callable[[type], type]:
    """A class decorator: each ``attribute=(kind, "name name ...")`` answers those names from the
    feature object held in ``attribute``.

    Parameters
    ----------
    **features : for each attribute holding a feature object, its class and the names it
        answers (separated by spaces).

    Returns
    -------
    the decorator, which adds one :class:`Forwarded` per name and refuses a name given twice or
    one the class defines itself.

    Examples
    --------
    >>> class Lamp:
    ...     on = False
    ...     def switch(self):
    ...         self.on = not self.on
    >>> @forwards(lamp=(Lamp, "switch on"))
    ... class Room:
    ...     def __init__(self):
    ...         self.lamp = Lamp()
    >>> room = Room()
    >>> room.switch(); room.on
    True
    """

    def decorate(cls: type) -> type:
        for feature, (kind, names) in features.items():
            for name in names.split():
                if name in vars(cls):
                    raise TypeError(f"{cls.__name__}.{name} is defined twice")
                setattr(cls, name, Forwarded(feature, kind, name))
        return cls

    return decorate
