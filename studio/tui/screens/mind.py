"""The playwright's hand on one character's inner life, in the app: a mood, an unlock, goals or a fact.

What is offered comes from the sheet and the take (the moods the sheet lists, the items still locked,
the goals in force, the facts as they stand); what is chosen is checked by studio.mind.edits, the same
rules `studio mind` applies, and handed back through `dismiss` as the fields of one human event. The
main screen commits it, so the dialog never touches the run.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from studio.mind import edits
from studio.tui.screens.modal import Dialog


class MindScreen(Dialog):
    """At 80x24 the parts run past the screen's foot: the dialog scrolls (Tab brings each part into view)
    and its help line stays at the bottom, where Esc and Tab are explained."""

    DEFAULT_CSS = """
    #mind-dialog { overflow-y: auto; }
    #mind-help { dock: bottom; margin-top: 0; }
    """

    def __init__(self, sheet: Any, name: str, mind: Any, goals: list[str], facts: dict[str, Any],
                 at: dict[str, int], lore: int = 0) -> None:
        super().__init__()
        self._lore = lore
        self._sheet = sheet
        self._character = name
        self._mind = mind
        self._goals = goals
        self._facts = facts
        self._at = at

    def compose(self) -> ComposeResult:
        from studio.tui.widgets.longtext import LongText

        with Vertical(classes="dialog", id="mind-dialog"):
            yield Label(Text(f"{self._character}'s inner life, by hand · scene {self._at['scene']}, "
                             f"run turn {self._at['turn']}"), classes="dialog-title")
            options: list[Option] = []
            width = max((len(m.name) for m in self._sheet.moods), default=0) + 2
            for i, mood in enumerate(self._sheet.moods):
                now = mood.name == self._mind.mood
                text = Text("mood    ", style="bold")
                text.append(f"{mood.name:<{width}}", style="bold yellow" if now else "")
                text.append(mood.voice, style="italic")
                text.append("  (now)" if now else "", style="bold")
                options.append(Option(text, id=f"mood:{i}"))
            for number, item in edits.locked(self._sheet, self._mind):
                text = Text("unlock  ", style="bold")
                text.append(f"{number}. {item}")
                options.append(Option(text, id=f"unlock:{number}"))
            if not options:
                options.append(Option(Text("no moods on the sheet and nothing left to unlock", style="dim"),
                                      disabled=True))
            book = Text("book    ", style="bold")
            book.append(f"World Info: {self._lore} entr{'y' if self._lore == 1 else 'ies'} in the books this run "
                        "holds; Enter opens them to read and edit (b does too)", style="italic")
            options.append(Option(book, id="book:"))
            yield OptionList(*options, id="mind-choices")
            yield Label("Goals, one per line; ctrl+s sets them:", classes="dialog-help")
            yield LongText("\n".join(self._goals), id="mind-goals", classes="short")
            facts = ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(self._facts.items())
                              if k != "on_stage")
            yield Label(Text("A world fact, NAME=VALUE (true, 3, rising; null removes it); Enter sets it. Now: "
                             + (facts or "none")), classes="dialog-help")
            yield Input(placeholder="storm=rising", id="mind-fact")
            yield Label("", id="mind-error")
            yield Label("Enter on a mood or an item commits it as your event, like a note; a rewind drops it "
                        "with the take. Tab moves between the parts; Esc closes.", classes="dialog-help", id="mind-help")

    def on_mount(self) -> None:
        self.query_one("#mind-choices", OptionList).focus()

    def _try(self, make: Any) -> None:
        try:
            fields = make()
        except edits.EditError as exc:
            error = self.query_one("#mind-error", Label)
            error.update(Text(f"{exc.problem}: {exc.fix}", style="bold red"))
            return
        self.dismiss(fields)

    @on(OptionList.OptionSelected, "#mind-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        kind, _, value = (event.option.id or "").partition(":")
        if kind == "mood":
            mood = self._sheet.moods[int(value)].name
            self._try(lambda: edits.mood(self._sheet, self._character, mood, **self._at))
        elif kind == "unlock":
            self._try(lambda: edits.unlock(self._sheet, self._character, self._mind, int(value), **self._at))
        elif kind == "book":
            self.dismiss({"open": "lorebook"})

    def on_long_text_submitted(self, event: Any) -> None:
        self._try(lambda: edits.goals(self._character, event.text.splitlines(), **self._at))

    @on(Input.Submitted, "#mind-fact")
    def _fact(self, event: Input.Submitted) -> None:
        self._try(lambda: edits.fact(event.value, **self._at))
