"""New play and new character forms: the same starting files as `studio new`, checked as you type."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from studio.model.starter import slug
from studio.tui.screens.modal import Dialog


class Seats(TypedDict):
    """The form's fields as `new_play` takes them: a seat left empty is None, or the default name."""

    title: str
    ego: str
    others: list[str]
    superego: str | None
    director: str | None


class NewPlayScreen(Dialog):
    """Returns the new play's path and the character sheets written for it, once they are written."""

    DEFAULT_CSS = """
    #new-play-dialog .row { height: auto; }
    #new-play-dialog .row Vertical { height: auto; width: 1fr; }
    """

    def __init__(self, root: Path) -> None:
        super().__init__()
        self._root = root
        self.problem = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="new-play-dialog"):
            yield Label("A new play", classes="dialog-title")
            yield Label("Title")
            yield Input(placeholder="e.g. The Visit", id="new-title")
            with Horizontal(classes="row"):
                with Vertical():
                    yield Label("Protagonist")
                    yield Input("protagonist", id="new-ego")
                with Vertical():
                    yield Label("Others (comma-separated)")
                    yield Input("stranger", id="new-others")
            with Horizontal(classes="row"):
                with Vertical():
                    yield Label("Inner voice (optional)")
                    yield Input(id="new-superego")
                with Vertical():
                    yield Label("Director (optional)")
                    yield Input(id="new-director")
            yield Static(id="new-problem")
            with Horizontal(classes="buttons"):
                yield Button("Create and open", variant="primary", id="new-create")
            yield Label("A character that does not exist yet gets a starting sheet in characters/. "
                        "Every file is commented: edit it later with P and c, or in your editor.",
                        classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#new-title", Input).focus()
        self._check()

    def _fields(self) -> Seats:
        value = lambda name: self.query_one(f"#new-{name}", Input).value.strip()  # noqa: E731
        return {
            "title": value("title"),
            "ego": value("ego") or "protagonist",
            "others": [n.strip() for n in value("others").split(",") if n.strip()],
            "superego": value("superego") or None,
            "director": value("director") or None,
        }

    @on(Input.Changed)
    def _check(self) -> None:
        fields = self._fields()
        problem = ""
        title = fields["title"]
        if not title:
            problem = "Give the play a title."
        elif (self._root / "plays" / f"{slug(title)}.toml").exists():
            problem = f"plays/{slug(title)}.toml already exists: choose another title."
        elif not fields["others"]:
            problem = "Name at least one character for the protagonist to talk to."
        else:
            names = [fields["ego"], *fields["others"], *(n for n in (fields["superego"], fields["director"]) if n)]
            stems = [slug(n) for n in names]
            if len(set(stems)) != len(stems):
                problem = "Two seats name the same character: give each its own."
        self.problem = problem
        said = problem or "Enter writes " + ", ".join(self._files(fields)) + "."
        self.query_one("#new-problem", Static).update(Text(said, style="yellow" if problem else ""))
        self.query_one("#new-title").set_class(bool(problem) and "title" in problem.lower(), "-invalid")
        self.query_one("#new-create", Button).disabled = bool(problem)

    def _files(self, fields: Seats) -> list[str]:
        """Every file Enter will write: the play, and a starting sheet for each seat with none yet."""
        names = [fields["ego"], *fields["others"], *(n for n in (fields["superego"], fields["director"]) if n)]
        sheets = [f"characters/{slug(n)}.toml" for n in names if not (self._root / "characters" / f"{slug(n)}.toml").exists()]
        return [f"plays/{slug(fields['title'])}.toml", *sheets]

    @on(Input.Submitted)
    @on(Button.Pressed, "#new-create")
    def _create(self) -> None:
        from studio.model import InputError
        from studio.model.starter import new_play

        self._check()
        if self.problem:
            self.notify(self.problem, severity="warning")
            return
        from studio import settings

        fields = self._fields()
        try:
            # the title page starts with the playwright's own author and contact; P edits it
            path, sheets = new_play(self._root, fields["title"], fields["ego"], fields["others"],
                                    fields["superego"], fields["director"], settings.title_page())
        except InputError as exc:
            self.notify(exc.message, severity="error")
            return
        self.dismiss((path, sheets))


class NewCharacterScreen(Dialog):
    """Returns the new sheet's path; the picker opens it in the sheet editor."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self._root = root
        self.problem = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="new-character-dialog"):
            yield Label("A new character", classes="dialog-title")
            yield Label("Name")
            yield Input(placeholder="e.g. Marlowe", id="new-name")
            yield Static(id="new-character-problem")
            yield Label("Enter writes characters/NAME.toml and opens it in the sheet editor.", classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#new-name", Input).focus()
        self._check()

    @on(Input.Changed)
    def _check(self) -> None:
        name = self.query_one("#new-name", Input).value.strip()
        path = self._root / "characters" / f"{slug(name)}.toml"
        self.problem = "Give the character a name." if not name else (
            f"characters/{path.name} already exists: choose another name." if path.exists() else "")
        shown = self.problem or f"Will write {path}."
        self.query_one("#new-character-problem", Static).update(Text(shown, style="yellow" if self.problem else ""))

    @on(Input.Submitted)
    def _create(self) -> None:
        from studio.model import InputError
        from studio.model.starter import new_character

        self._check()
        if self.problem:
            self.notify(self.problem, severity="warning")
            return
        try:
            path = new_character(self._root, self.query_one("#new-name", Input).value)
        except InputError as exc:
            self.notify(exc.message, severity="error")
            return
        self.dismiss(path)
