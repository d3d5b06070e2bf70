"""The character sheet editor: validated on every keystroke, saved atomically, never saved invalid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from studio.model import CharacterSheet, InputError
from studio.model.edit import save_model
from studio.model.inner_life import Traits
from studio.model.starter import starter_description, starter_prompt
from studio.model.sheet_lines import LISTS, LineProblem, from_lines, to_lines
from studio.tui.screens.modal import KeepsTyping
from studio.tui.widgets.longtext import LongText

NUMBERS = {"temperature": float, "max_tokens": int}
FIELDS = ("name", "description", "prompt", "model", "temperature", "max_tokens")
TRAITS = tuple(Traits.model_fields)
# Short enough for five boxes in a row at 80 columns, and still the Big Five's own words.
TRAIT_LABELS = {"openness": "Openness", "conscientiousness": "Conscientious", "extraversion": "Extraversion",
                "agreeableness": "Agreeable", "neuroticism": "Neuroticism"}
LIST_LABELS = {
    "moods": "Moods, one a line: name weight: how it colours their lines (weight 1 if left out)",
    "knowledge": 'Knowledge, one fact a line; a condition comes first, when { keyword = "logbook" }: known once it holds',
    "goals": "Goals, one a line; scene 2: a goal for that scene only",
}
# Every field in the order it is shown, so the problems line reads top to bottom.
ALL_FIELDS = (*FIELDS, *(f"trait-{t}" for t in TRAITS), *LISTS)


class CharacterScreen(KeepsTyping, ModalScreen[Path | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="save-character"),
        Binding("escape", "cancel", "Cancel", id="cancel-character"),
    ]

    discard_what = "Your changes to the sheet are not saved."

    def __init__(self, sheet: CharacterSheet, path: Path, role_label: str) -> None:
        super().__init__()
        self._sheet = sheet
        self._path = path
        self._role_label = role_label
        self.valid: CharacterSheet | None = sheet
        self.problems: dict[str, str] = {}
        # model name -> what is wrong with it (None: routable); filled off the loop, since asking
        # whether a provider serves a name may import litellm
        self._models: dict[str, str | None] = {}
        self._checking: set[str] = set()
        if sheet.model:
            self._models[sheet.model] = None  # as opened: the run already started with it

    def compose(self) -> ComposeResult:
        sheet = self._sheet
        with Vertical(classes="dialog wide", id="character-dialog"):
            yield Label(Text(f"{self._role_label} · {self._path}"), classes="dialog-title")
            with VerticalScroll(id="character-fields"):
                yield Label("Name")
                yield Input(sheet.name, id="field-name", select_on_focus=False)  # a stray key must not wipe it
                yield Label("Public description: what the others know of them")
                starts = sheet.description == starter_description(sheet.name)  # a new file's advice: a hint
                yield Input("" if starts else sheet.description, id="field-description",
                            placeholder=sheet.description if starts else "")
                yield Label("Prompt: who they are and how they speak")
                yield LongText(sheet.prompt.strip(), id="field-prompt", suffix=".md",
                               starter=starter_prompt(sheet.name))
                with Horizontal(id="character-settings"):
                    with Vertical():
                        yield Label("Model (empty: the play's)")
                        yield Input(sheet.model or "", id="field-model")
                    with Vertical():
                        yield Label("Temperature 0-2")
                        yield Input("" if sheet.temperature is None else f"{sheet.temperature:g}",
                                    id="field-temperature")
                    with Vertical():
                        yield Label("Max tokens")
                        yield Input("" if sheet.max_tokens is None else str(sheet.max_tokens), id="field-max_tokens")
                # The inner life a playwright gives them: the Big Five from -2 to +2, then three lists
                # edited as lines (studio.model.sheet_lines says how a line reads).
                yield Label("Traits from -2 to +2 (0 or empty: leave it to the model)")
                with Horizontal(id="character-traits"):
                    for trait in TRAITS:
                        with Vertical():
                            yield Label(TRAIT_LABELS[trait])
                            value = getattr(sheet.traits, trait) if sheet.traits else 0
                            yield Input(f"{value:+d}" if value else "", id=f"field-trait-{trait}",
                                        placeholder="0")
                for field in LISTS:
                    yield Label(LIST_LABELS[field])
                    yield LongText(to_lines(field, getattr(sheet, field)), id=f"field-{field}",
                                   classes="short" if field != "knowledge" else "", soft_wrap=False)
            yield Static(id="character-problems")
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", variant="primary", id="character-save")
                yield Button("Cancel", id="character-cancel")
            yield Label("In a box: ctrl+a selects all, ctrl+l clears, ctrl+e opens $EDITOR; dim text is a hint, "
                        "kept if you leave the box empty. This run keeps its cast; new runs read the saved sheet.",
                        classes="dialog-help")

    def on_mount(self) -> None:
        # the first field holds the keys typed as the editor opens, and Tab goes on from it
        self.query_one("#field-name", Input).focus()
        self._validate()

    def _values(self) -> dict[str, Any]:
        data: dict[str, Any] = self._sheet.model_dump(exclude_none=True)
        problems: dict[str, str] = {}
        for field in FIELDS:
            if field == "prompt":
                raw = self.query_one("#field-prompt", LongText).kept_text
            else:
                box = self.query_one(f"#field-{field}", Input)
                raw = box.value if box.value.strip() or field != "description" else box.placeholder
            raw = raw.strip()
            if field in NUMBERS:
                if not raw:
                    data.pop(field, None)
                    continue
                try:
                    data[field] = NUMBERS[field](raw)
                except ValueError:
                    kind = "a whole number" if NUMBERS[field] is int else "a number"
                    problems[field] = f"write it as {kind}"
                continue
            if field == "model":
                if not raw:
                    data.pop("model", None)
                    continue
                if raw not in self._models:
                    problems[field] = "checking the name…"
                    if raw not in self._checking:
                        self._checking.add(raw)
                        self._check_model(raw)
                elif self._models[raw]:
                    problems[field] = str(self._models[raw])
            data[field] = raw
        traits: dict[str, int] = {}
        for trait in TRAITS:
            raw = self.query_one(f"#field-trait-{trait}", Input).value.strip()
            if not raw:
                continue
            try:
                value = int(raw)
            except ValueError:
                value = None
            if value is None or not -2 <= value <= 2:
                problems[f"trait-{trait}"] = "write a whole number from -2 to +2"
                continue
            if value:
                traits[trait] = value
        if traits or self._sheet.traits is not None:
            data["traits"] = traits
        for field in LISTS:
            text = self.query_one(f"#field-{field}", TextArea).text
            try:
                data[field] = from_lines(field, text, getattr(self._sheet, field))
            except LineProblem as exc:
                problems[field] = str(exc)
        self.problems = problems
        return data

    def _validate(self) -> None:
        data = self._values()
        problems = dict(self.problems)
        sheet = None
        if not problems:
            try:
                sheet = CharacterSheet.model_validate(data)
            except ValidationError as exc:
                for err in exc.errors():
                    field = str(err["loc"][0]) if err["loc"] else "sheet"
                    if field == "traits" and len(err["loc"]) > 1:
                        field = f"trait-{err['loc'][1]}"
                    problems.setdefault(field, err["msg"].lower())
        self.valid = sheet if not problems else None
        self.problems = problems
        for field in ALL_FIELDS:
            widget = self.query_one(f"#field-{field}")
            widget.set_class(field in problems, "-invalid")
        shown = sorted(problems.items(), key=lambda kv: ALL_FIELDS.index(kv[0]) if kv[0] in ALL_FIELDS else 0)
        message = "  ".join(f"{field.removeprefix('trait-')}: {problem}" for field, problem in shown)
        if message:
            message = f"{self._path.name}: {message}"
        self.query_one("#character-problems", Static).update(Text(message or "Valid."))
        self.query_one("#character-problems").set_class(bool(problems), "-invalid")
        self.query_one("#character-save", Button).disabled = self.valid is None

    @work(thread=True, group="model-check", exit_on_error=False)
    def _check_model(self, name: str) -> None:
        from studio.llm import check_model

        problem = check_model(name)
        self.app.call_from_thread(self._model_checked, name, problem)

    def _model_checked(self, name: str, problem: str | None) -> None:
        self._models[name] = problem
        if self.is_mounted:
            self._validate()

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _changed(self) -> None:
        self._validate()

    @on(LongText.Submitted)
    @on(Button.Pressed, "#character-save")
    def action_save(self) -> None:
        self._validate()
        if self.valid is None:
            self.notify(f"Not saved: {self._path}: " + "; ".join(f"{k}: {v}" for k, v in self.problems.items()),
                        severity="error")
            return
        try:
            # against the sheet as it was opened: a field changed elsewhere meanwhile is not undone
            save_model(self.valid, self._path, previous=self._sheet)
        except InputError as exc:
            self.notify(f"Not saved: {exc.message}", severity="error", markup=False)
            return
        except OSError as exc:
            self.notify(f"Not saved: {self._path}: {exc.strerror}", severity="error")
            return
        self.dismiss(self._path)

    @on(Button.Pressed, "#character-cancel")
    def action_cancel(self) -> None:
        self.close(lambda: self.dismiss(None))
