"""Textual's private parts the app reaches for where Textual has no public call, each checked once for the
shape the studio knows. A Textual that changed one leaves that feature to Textual's own behaviour, and
the app's log says which (the same rule as the Esc key's, studio/tui/escapes.py)."""

from __future__ import annotations

import functools
import inspect

NOTES = "clearing passing notifications when a dialog opens"
FRAME = "drawing a new line's first words in the next frame"


def _parameters(owner: type, name: str) -> list[str] | None:
    method = inspect.getattr_static(owner, name, None)
    return list(inspect.signature(method).parameters) if inspect.isfunction(method) else None


def _sets(owner: type, *names: str) -> bool:
    """Whether `owner.__init__` assigns these attributes (read from its code, not run)."""
    code = getattr(vars(owner).get("__init__"), "__code__", None)
    return code is not None and set(names) <= set(code.co_names)


@functools.cache
def missing() -> dict[str, str]:
    """The features whose private parts are not the shape the studio knows, each with what changed."""
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    return check(App, Screen, Widget)


def check(app: type, screen: type, widget: type) -> dict[str, str]:
    gone: dict[str, str] = {}
    if not (
        _sets(app, "_notifications")
        and _parameters(app, "_unnotify") == ["self", "notification", "refresh"]
        and _parameters(app, "_refresh_notifications") == ["self"]
    ):
        gone[NOTES] = "App._notifications, _unnotify(notification, refresh) or _refresh_notifications() changed"
    if not (
        _sets(screen, "_dirty_widgets", "_compositor")
        and _sets(widget, "_layout_required")
        and isinstance(inspect.getattr_static(screen, "_update_timer", None), property)
    ):
        gone[FRAME] = "Screen._dirty_widgets, _compositor, _update_timer or Widget._layout_required changed"
    return gone


def has(feature: str) -> bool:
    return feature not in missing()
