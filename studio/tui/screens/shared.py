"""A run more than one window plays: a key that changes the stage says what it will do before it does it.

Alone on a run, every key acts at once, as it always has. With another window on the run (a tab of
`studio serve`, a terminal), a key whose control `changes_stage` (studio/tui/controls.py) first puts one
line under the panes: what it will do, naming the line it acts on, and who else is here. Enter does it;
any other key leaves it. The keys typed while that line is up are a playwright typing into a box that is
not open (their line had not come yet): they are kept as text, never read as keys, and Enter then keeps
them for this window's own box, which opens with them in it when its line comes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from studio.clean import one_line
from studio.tui.controls import MAIN, Control
from studio.tui.screens.group import ControlGroup

if TYPE_CHECKING:
    from textual import events

ASKING = {key: control for control in MAIN if control.changes_stage for key in control.key.split(",")}
"""The keys that ask first in a shared run, each with its control."""

QUOTE = 40  # characters of a line quoted in the ask

DONE = {
    "edit": "rewrote {line}",
    "regenerate": "wrote a new take: {line}",
    "continue": "let the model go on: {line}",
    "take": "put another take on stage: {line}",
    "insert": "added {line}",
    "cut": "cut a line",
    "move": "moved {line}",
    "import": "imported a script",
}
"""Another window's action, as the notice tells it (a rewind is told with the turn it went back to)."""
ACTIONS = {"edit": "edit", "insert": "added line", "cut": "cut", "move": "move", "rewind": "rewind",
           "regenerate": "new take", "continue": "continued line", "take": "take switch", "import": "import"}
"""A window's own action, as its undo names it."""


def quoted(event: Any) -> str:
    """A line as the ask names it: whose, and its first words, as plain text."""
    text = one_line(event.text)
    short = text if len(text) <= QUOTE else text[: QUOTE - 1] + "…"
    who = one_line(event.character) if event.character else "the director"
    return f"{who}'s line “{short}”"


class SharedStage(ControlGroup):
    def __init__(self, screen: Any) -> None:
        super().__init__(screen)
        self.asking: Control | None = None
        self.typed = ""  # what was typed while the ask was up
        self.draft = ""  # kept for this window's box: it opens with it in it
        self.unsent: str | None = None  # the line given in this window's box, until it is committed
        self.asked: list[str] = []  # every ask that was answered with Enter, as it was said
        self.acting: Any = None  # the worker doing what was asked

    # -- who else is here ------------------------------------------------------------------------

    def others(self) -> list[str]:
        """The other windows (and commands) playing this run now, by name."""
        from studio.store import StoreError
        from studio.store.leases import window_name

        engine = self.screen.engine
        if engine is None:
            return []
        try:
            players = engine.store.players(engine.run_id)
        except StoreError:
            return []
        return sorted({window_name(h) for h in players if h != engine.holder})

    def news(self, before: int | None, seen: set[int]) -> str | None:
        """What another window did to the run, in words, after it was reread here: a rewind, an edit, a cut,
        another take put on stage, an undo (lines written forward show themselves); `before` and `seen` are
        the head and the events of the take this window showed."""
        engine = self.screen.engine
        if engine is None or before is None or engine.head == before or before in engine.by_id:
            return None
        head = engine.head
        who, action, undone = self.mover(head)
        new = next((e for e in engine.path if e.id not in seen and e.on_stage), None)
        line = quoted(new) if new is not None else "a line"
        if undone:
            what = "undid their last change"
        elif action in DONE:
            what = DONE[action].format(line=line)
        elif head is None or head in seen:
            event = engine.by_id.get(head) if head is not None else None
            what = f"rewound to turn {event.turn}" if event is not None and event.turn else "rewound to the start"
        else:
            what = f"put a new take of {line} on stage" if new is not None else "put another take on stage"
        return f"{who} {what}."

    def mover(self, head: int | None) -> tuple[str, str | None, bool]:
        """Who moved the run's head to `head`, and how, as the run's history of playwrights' actions says
        (studio/engine/history.py): the window, its action, and whether it was an undo. Where the history
        does not say, the one other window on the run, else "Another window"."""
        from studio.store.leases import window_name

        engine = self.screen.engine
        assert engine is not None
        try:
            row = engine.store._one(
                "SELECT holder, action, after_head IS ? AND undone = 0 FROM pen_history WHERE run_id = ? AND "
                "holder IS NOT ? AND ((after_head IS ? AND undone = 0) OR (before_head IS ? AND undone = 1)) "
                "ORDER BY id DESC LIMIT 1", (head, engine.run_id, engine.holder, head, head))
        except Exception:  # noqa: BLE001 - a store without the history: say what can be known
            row = None
        if row is not None and row[0]:
            return window_name(row[0]), row[1], not row[2]
        others = self.others()
        return (others[0] if len(others) == 1 else "Another window"), None, False

    # -- the keys ----------------------------------------------------------------------------------

    def intercept(self, event: events.Key) -> bool:
        """Take the key here if an ask is up, or if it is a key that asks first in a shared run: True if
        taken (the screen then stops it, so no binding reads it)."""
        if self.asking is not None:
            self._answer(event)
            return True
        control = ASKING.get(event.key)
        if control is None or self.screen.engine is None or self._in_a_box():
            return False  # a box's own keys (ctrl+z in the line's box) stay the box's
        others = self.others()
        if not others:
            return False  # alone: today's fast keys
        what = self.describe(control, event.character if event.is_printable and event.character else None)
        if what is None:
            return False
        self.asking, self.typed = control, event.character or ""
        self._what = f"{' and '.join(others)} {'is' if len(others) == 1 else 'are'} on this run too: {what}"
        self._show()
        return True

    def _answer(self, event: events.Key) -> None:
        control = self.asking
        assert control is not None
        if event.key == "escape":
            self._close()
            return
        if event.key == "enter":
            typed = self.typed if len(self.typed) > 1 else ""
            if typed:  # a sentence, not a command: kept for the box, never read as keys
                self.draft = (self.draft + " " + typed).strip() if self.draft else typed
                self._close()
                self.notify("Kept what you typed; it is in your box when your line comes (Esc there drops "
                            "it).", title="Not a command", markup=False)
                return
            self.asked.append(self._what)
            self._close()
            screen: Any = self.screen  # the run screen itself, where the table's actions are found
            self.acting = screen.run_worker(self.app.run_action(control.action, screen), group="asked",
                                            exit_on_error=False)
            return
        if event.key == "backspace":
            self.typed = self.typed[:-1]
        elif event.character is not None and event.is_printable:
            self.typed += event.character
        self._show()

    def _show(self) -> None:
        from studio.tui.widgets.lines import AskLine

        line = self.screen.query_one(AskLine)
        text = Text()
        if len(self.typed) > 1:
            text.append("Your box is closed: what you type is kept here, not read as keys: ", style="bold")
            text.append(f"“{one_line(self.typed)[-60:]}”")
            text.append(" · Enter keeps it for your box · Esc drops it")
        else:
            text.append(self._what, style="bold")
            text.append(" · Enter does it · Esc leaves it")
        line.update(text)
        line.display = True

    def _close(self) -> None:
        from studio.tui.widgets.lines import AskLine

        self.asking, self.typed = None, ""
        self.screen.query_one(AskLine).display = False

    def _in_a_box(self) -> bool:
        from textual.widgets import Input, TextArea

        return isinstance(self.screen.focused, (Input, TextArea))

    def give_way(self) -> None:
        """This window's box opened: an ask still up gives way to it, and what was typed under it goes in."""
        if self.asking is None:
            return
        if len(self.typed) > 1:
            self.draft = (self.draft + " " + self.typed).strip() if self.draft else self.typed
        self._close()

    def keep_unsent(self) -> bool:
        """The line this window's playwright sent did not go in (the run moved on under it): it waits in
        the box for when the role's line comes again. True if there was one."""
        unsent, self.unsent = self.unsent, None
        if not unsent:
            return False
        self.draft = unsent
        return True

    def take_draft(self) -> str:
        draft, self.draft = self.draft, ""
        return draft

    # -- what a key will do, in words ----------------------------------------------------------------

    def describe(self, control: Control, key: str | None = None) -> str | None:
        """What the control will do to the stage, naming the line it acts on; None when the key does
        nothing to the stage now (it only pauses, or a search takes n), so it needs no asking. `key`: the
        key as pressed (else the control's keys)."""
        from studio.tui import views

        engine, screen = self.screen.engine, self.screen
        if engine is None:
            return None
        key = key or control.keys
        if control.id == "play" and screen.busy:
            return None  # p pauses
        if control.id == "note" and getattr(screen.desk, "_search", None) is not None:
            return None  # n moves to the next match
        if control.id in ("step", "play"):
            if engine.finished or screen.busy:
                return None  # it says so, and changes nothing
            stretch = "plays the rest of the scene" if control.id == "play" else "plays the next turn"
            return f"{key} {stretch}: {views.next_step(engine)}"
        if control.id == "rewind":
            stage = engine.stage()
            if not stage:
                return None
            return f"{key} rewinds one turn: {quoted(stage[-1])} and its turn leave the stage (kept as a take)"
        if control.id == "note":
            return f"{key} opens a note that the director and every character hear from the next turn"
        dialogs = {
            "take-tree": "opens the take tree, where Enter puts another take on stage",
            "roles": "opens the roles, where Enter takes one over or hands it back",
            "strategies": "opens the superego's strategies, switched for everyone from the next step",
            "who-next": "chooses who speaks next",
            "enter-exit": "sends a character on or off stage",
            "mind": "opens a character's mind, where a change is an event of the run",
        }
        if control.id in dialogs:
            return f"{key} {dialogs[control.id]}"
        if control.id in ("undo", "redo"):
            from studio.engine import history

            found = history.upcoming(engine, redo=control.id == "redo")
            if found is None:
                return None  # nothing to undo or redo: it says so, and changes nothing
            verb, shows = ("undoes", "before") if control.id == "undo" else ("does again", "after")
            noun = ACTIONS.get(found.action, found.action)
            return f"{key} {verb} your {noun}; the stage shows the take from {shows} it"
        selected = self._selected()
        if selected is None:
            return None  # the action says "select a line first"
        line = quoted(selected)
        words = {
            "regenerate": f"{key} writes {line} again; what follows it leaves the stage",
            "regenerate-directed": f"{key} writes {line} again with your direction",
            "continue-line": f"{key} lets the model go on from {line}",
            "take-previous": f"{key} puts another take of {line} on stage, and what followed it",
            "take-next": f"{key} puts another take of {line} on stage, and what followed it",
            "edit-line": f"{key} opens {line} to rewrite: your text takes its place",
            "insert-after": f"{key} opens a line of yours to write after {line}",
            "insert-before": f"{key} opens a line of yours to write before {line}",
            "cut-line": f"{key} takes {line} off the stage (the old take stays)",
            "move-up": f"{key} moves {line} above the line before it",
            "move-down": f"{key} moves {line} below the line after it",
        }
        gist = control.help.split(";")[0].split(":")[0].rstrip(".")
        return words.get(control.id, f"{key} ({control.label}) on {line}: {gist}")

    def _selected(self) -> Any:
        from studio.tui.widgets.stage import StageView

        engine = self.screen.engine
        event_id = self.screen.query_one("#stage", StageView).selected_id
        return engine.by_id.get(event_id) if engine is not None and event_id is not None else None
