"""The small modal screens: edit a line, take over roles, switch strategies, export, read critiques.

Each returns what the playwright chose through `dismiss`; the main screen does the engine call, so a
dialog never touches the run itself.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Static,
    Switch,
    TextArea,
)
from textual.widgets.option_list import Option

from studio.present.words import STRATEGY_LABELS
from studio.tui.screens.modal import Dialog, KeepsTyping

if TYPE_CHECKING:
    from studio.tui.widgets.longtext import LongText


class EditLineScreen(KeepsTyping, Dialog):
    """The playwright's own words for a line; committing branches the run there."""

    discard_what = "Your words for the line are not in the play yet."

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self._title = title
        self._text = text

    def compose(self) -> ComposeResult:
        from studio.tui.widgets.longtext import LongText

        with Vertical(classes="dialog", id="edit-line-dialog"):
            yield Label(Text(self._title), classes="dialog-title")
            yield LongText(self._text, id="edit-line-input")
            yield Label(
                "ctrl+s commits: your line replaces it and the run branches from here; the old future stays a take. "
                "ctrl+a selects all, ctrl+l clears, ctrl+e opens it in $EDITOR. Esc cancels (asking first if you changed "
                "it).",
                classes="dialog-help",
            )

    def on_mount(self) -> None:
        area = self.query_one("#edit-line-input", TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def on_long_text_submitted(self, event: LongText.Submitted) -> None:
        text = event.text.strip()
        if not text:
            self.notify("A line cannot be empty.", severity="warning")
            return
        self.dismiss(text)


class RolesScreen(Dialog):
    """Pick a role to take over, or one you play to hand back to its model. A role another window holds
    says whose it is: only that window hands it back."""

    def __init__(self, rows: list[tuple[str, str, str, str]], me: str = "") -> None:
        """`rows`: key, name, who plays it ("" for its model, "you", or the window holding it), model."""
        super().__init__()
        self._rows = rows
        self._me = me

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="roles-dialog"):
            title = "Take over a role, or hand it back" + (f" (this is {self._me})" if self._me else "")
            yield Label(title, classes="dialog-title")
            options = []
            for key, name, who, model in self._rows:
                text = Text()
                text.append(f"{name} ", style="bold")
                text.append(f"({key})  ", style="dim")
                if who == "you":
                    text.append("played by you: Enter hands it back", style="yellow")
                elif who:
                    text.append(f"played by {who}: theirs to hand back", style="dim yellow")
                else:
                    text.append(f"{model}: Enter takes it over")
                options.append(Option(text, id=key))
            yield OptionList(*options, id="roles-list")
            yield Label("Enter toggles the highlighted role; Esc closes.", classes="dialog-help")

    @on(OptionList.OptionSelected, "#roles-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class CharactersScreen(Dialog):
    """Which character's sheet to edit: every seat with a file, the cast pane's choice highlighted, so no
    character is reached only by moving through another pane first."""

    def __init__(self, rows: list[tuple[str, str, str]], highlighted: str | None = None) -> None:
        super().__init__()
        self._rows = rows
        self._highlighted = highlighted

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="characters-dialog"):
            yield Label("Edit a character's sheet", classes="dialog-title")
            options = []
            for key, name, file in self._rows:
                text = Text()
                text.append(f"{name} ", style="bold")
                text.append(f"({key})  ", style="dim")
                text.append(file)
                options.append(Option(text, id=key))
            yield OptionList(*options, id="characters-list")
            yield Label("Enter edits the highlighted character's sheet; Esc closes.", classes="dialog-help")

    def on_mount(self) -> None:
        listing = self.query_one("#characters-list", OptionList)
        keys = [key for key, _, _ in self._rows]
        listing.highlighted = keys.index(self._highlighted) if self._highlighted in keys else 0
        listing.focus()

    @on(OptionList.OptionSelected, "#characters-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class StrategiesScreen(Dialog):
    """The superego's three strategies as switches; each flip is sent to the engine at once."""

    BINDINGS = [Binding("a", "all", "All on/off", id="all-strategies")]

    def __init__(self, states: dict[str, bool], on_switch: Any) -> None:
        super().__init__()
        self._states = states
        self._on_switch = on_switch

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="strategies-dialog"):
            yield Label("The superego's strategies", classes="dialog-title")
            for name, on_ in self._states.items():
                with Horizontal(classes="switch-row"):
                    yield Switch(on_, id=f"strategy-{name}")
                    yield Label(STRATEGY_LABELS[name].split(" ", 1)[1].capitalize() + f"  ({name})")
            yield Label("Space or Enter flips a switch; a switches the whole superego on or off; it counts from the "
                        "next step. Esc closes.", classes="dialog-help")

    def action_all(self) -> None:
        """The one switch for the inner voice: all strategies on unless all are on already."""
        target = not all(self._states.values())
        for name in self._states:
            self.query_one(f"#strategy-{name}", Switch).value = target  # each flip is its own control event

    def on_switch_changed(self, event: Switch.Changed) -> None:
        name = (event.switch.id or "").removeprefix("strategy-")
        if name in self._states and self._states[name] != event.value:
            self._states[name] = event.value
            self._on_switch(name, event.value)


class TickingRadioSet(RadioSet):
    """A radio set whose tick follows the arrows, as a form's radio buttons do: what is highlighted is what
    is chosen, so Enter never acts on a choice the playwright has moved away from."""

    def action_next_button(self) -> None:
        super().action_next_button()
        self.action_toggle_button()

    def action_previous_button(self) -> None:
        super().action_previous_button()
        self.action_toggle_button()


class ExportScreen(Dialog):
    """Format, backstage or not, and where: handed back as a dict for the exporter. Enter exports from any
    field (a radio set and a checkbox would take it as a choice, and the dialog seemed to do nothing);
    space picks the format or the backstage."""

    BINDINGS = [Binding("enter", "export", "Export", priority=True, id="export-enter")]

    def __init__(self, default_dir: str = "exports", ask_path: bool = True) -> None:
        """`ask_path` False where the file goes to the playwright as a download: no path is theirs to name."""
        from studio.export import FORMATS

        super().__init__()
        self._default_dir = default_dir
        self._ask_path = ask_path
        self._formats = {name: f.description for name, f in FORMATS.items()}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="export-dialog"):
            yield Label("Export the current take", classes="dialog-title")
            with TickingRadioSet(id="export-format"):
                for i, (fmt, label) in enumerate(self._formats.items()):
                    yield RadioButton(label, value=i == 0, id=f"format-{fmt}")
            yield Checkbox("Include the backstage", id="export-backstage")
            if self._ask_path:
                yield Input(placeholder=f"Path (empty: a new file in {self._default_dir}/)", id="export-path")
            else:
                yield Label("The file comes to you as a download.", classes="dialog-help")
            with Horizontal(classes="buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
            yield Label("↑/↓ pick the format, space ticks the backstage; Enter exports; Esc cancels.",
                        classes="dialog-help")

    def _choice(self) -> dict[str, Any]:
        radio = self.query_one("#export-format", RadioSet)
        index = radio.pressed_index if radio.pressed_index >= 0 else 0
        path = self.query_one("#export-path", Input).value.strip() if self._ask_path else ""
        return {
            "fmt": list(self._formats)[index],
            "backstage": self.query_one("#export-backstage", Checkbox).value,
            "out": path or None,  # a string keeps the trailing slash that names a folder
        }

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-path")
    def action_export(self) -> None:
        if self.focused is not None and self.focused.id == "export-cancel":
            self.dismiss(None)
            return
        self.dismiss(self._choice())

    @on(Button.Pressed, "#export-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


class CritiquesScreen(Dialog):
    """The critics' verdicts stored with the run, newest last, until a richer view plugs in."""

    def __init__(self, critiques: list[dict[str, Any]]) -> None:
        super().__init__()
        self._critiques = critiques

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="critiques-dialog"):
            yield Label("Critiques of this run", classes="dialog-title")
            with VerticalScroll():
                if not self._critiques:
                    yield Static(Text("No critiques yet.", style="dim"))
                for critique in self._critiques:
                    yield Static(_critique_text(critique), classes="critique")
            yield Label("Esc closes.", classes="dialog-help")


def _critique_text(critique: dict[str, Any]) -> Text:
    text = Text()
    text.append(f"Critique {critique.get('id')}", style="bold")
    if critique.get("model"):
        text.append(f" · {critique['model']}", style="dim")
    if critique.get("head") is not None:
        text.append(f" · up to event {critique['head']}", style="dim")
    for key, value in critique.items():
        if key in ("id", "head", "created", "model"):
            continue
        if isinstance(value, dict):
            score = value.get("score")
            note = value.get("interpretation") or value.get("note") or ""
            text.append(f"\n{key.replace('_', ' ')}: ", style="bold")
            text.append(f"{score}/10 " if score is not None else "")
            text.append(str(note))
        else:
            text.append(f"\n{key.replace('_', ' ')}: ", style="bold")
            text.append(value if isinstance(value, str) else json.dumps(value))
    return text


class ConfirmScreen(Dialog):
    """A yes or no before something that cannot be undone: y or Enter says yes, n or Esc says no.

    Returns True for yes, None for no."""

    BINDINGS = [Binding("y,enter", "yes", "Yes", id="confirm-yes"), Binding("n", "dismiss_none", "No", id="confirm-no")]

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self._title = title
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-dialog"):
            yield Label(Text(self._title), classes="dialog-title")
            yield Static(Text(self._question), id="confirm-question")  # names from files: text, never markup
            yield Label("y or Enter: yes · n or Esc: no.", classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#confirm-dialog").styles.height = "auto"

    def action_yes(self) -> None:
        self.dismiss(True)
