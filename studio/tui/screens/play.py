"""The play editor: scene briefs, turns, cast, the superego's timing and the title page, saved in place.

Like the sheet editor it validates on every keystroke and saves only a valid play, through the
style-preserving writer, so the playwright's comments and layout survive. A run keeps the play it
started with; new runs read the saved file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from studio.model import InputError
from studio.model.play import CastMember, Play, SceneBrief, StrategySchedule, SuperegoMember
from studio.present.words import shown_path
from studio.model.starter import STARTER_PREMISE, STARTER_SCENE
from studio.tui.screens.modal import KeepsTyping
from studio.tui.widgets.longtext import LongText

STRATEGY_FIELDS = (
    ("rewrite_prompt", "Rewrites the ego's prompt"),
    ("rewrite_speech", "Rewrites what the ego hears"),
    ("critique", "Critiques the ego's draft"),
)


def schedule_text(schedule: StrategySchedule) -> str:
    if not schedule.enabled:
        return "off"
    if schedule.probability is not None:
        return f"p{schedule.probability:g}"
    return str(schedule.every or 1)


def parse_schedule(text: str, old: StrategySchedule) -> StrategySchedule:
    """`4`: every 4 turns; `p0.3`: with probability 0.3; `off`: never."""
    raw = text.strip().lower()
    if raw in ("off", "no", "never"):
        return old.model_copy(update={"enabled": False})
    if raw.startswith("p"):
        try:
            value = float(raw[1:])
        except ValueError:
            raise ValueError("write p and a probability, e.g. p0.3") from None
        return StrategySchedule(enabled=True, probability=value)
    try:
        every = int(raw)
    except ValueError:
        raise ValueError("write every how many turns (4), a probability (p0.3) or off") from None
    return StrategySchedule(enabled=True, every=every)


def contact_text(contact: str) -> str:
    """A contact of several lines (an address) on the one line of its box, the lines apart by " / "."""
    return " / ".join(line.strip() for line in contact.splitlines() if line.strip())


def briefs_text(play: Play) -> str:
    if not isinstance(play.scenes, list):
        return ""
    return "\n\n".join(s.brief if isinstance(s, SceneBrief) else s for s in play.scenes)


def rebrief(scenes: int | list[str | SceneBrief], briefs: list[str]) -> list[str | SceneBrief]:
    """The scenes under new briefs: a scene that says who is on stage and who comes and goes keeps that."""
    old = scenes if isinstance(scenes, list) else []
    staged = [s if isinstance(s, SceneBrief) else None for s in old] + [None] * len(briefs)
    return [brief if scene is None else scene.model_copy(update={"brief": brief})
            for brief, scene in zip(briefs, staged)]


class PlayScreen(KeepsTyping, ModalScreen[Path | None]):
    DEFAULT_CSS = """
    #play-fields .row { height: auto; }
    #play-fields .row Vertical { height: auto; width: 1fr; margin-right: 1; }
    #play-fields .row Vertical.wide { width: 2fr; }
    #play-fields .row Label { width: 1fr; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="save-play"),
        Binding("escape", "cancel", "Cancel", id="cancel-play"),
    ]

    discard_what = "Your changes to the play are not saved."

    def __init__(self, play: Play, path: Path) -> None:
        super().__init__()
        self._play = play
        self._path = path
        self.valid: Play | None = play
        self.problems: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        play = self._play
        superego = play.cast.superego
        with Vertical(classes="dialog wide", id="play-dialog"):
            yield Label(Text(f"{play.title} · {shown_path(self._path)}"), classes="dialog-title")
            with VerticalScroll(id="play-fields"):
                # side by side where a field is short, so all of it, the superego's timing included, fits
                # a 45-row terminal without scrolling
                with Horizontal(classes="row"):
                    with Vertical(classes="wide"):
                        yield Label("Title")
                        yield Input(play.title, id="play-title", select_on_focus=False)  # a stray key must not wipe it
                    with Vertical():
                        yield Label("Turns per scene")
                        yield Input(str(play.turns), id="play-turns")
                    with Vertical():
                        yield Label("Scene count")
                        yield Input(str(play.scenes) if isinstance(play.scenes, int) else "", id="play-scene-count")
                yield Label("Premise: what the play is about")
                yield LongText(play.premise, id="play-premise", classes="short", starter=STARTER_PREMISE)
                yield Label("Scene briefs: one paragraph per scene, a blank line between (none: the scene count above)")
                yield LongText(briefs_text(play), id="play-scenes", starter=STARTER_SCENE)
                yield Label("Cast: a character's file name in characters/ (without .toml)")
                with Horizontal(classes="row"):
                    with Vertical():
                        yield Label("Protagonist (ego)")
                        yield Input(play.cast.ego.character if play.cast.ego else "", id="play-ego")
                    with Vertical():
                        yield Label("Others, comma-separated")
                        yield Input(", ".join(m.character for m in play.cast.others), id="play-others")
                    with Vertical():
                        yield Label("Inner voice (empty: none)")
                        yield Input(superego.character if superego else "", id="play-superego")
                    with Vertical():
                        yield Label("Director (empty: none)")
                        yield Input(play.cast.director.character if play.cast.director else "", id="play-director")
                yield Label("The superego's timing: every N turns, pN for a probability, or off")
                with Horizontal(classes="row"):
                    for name, label in STRATEGY_FIELDS:
                        with Vertical():
                            yield Label(label, id=f"play-{name}-label")
                            schedule = superego.schedule(name) if superego else SuperegoMember(
                                character="x").schedule(name)
                            yield Input(schedule_text(schedule), id=f"play-{name}")
                # last: the timing above must fit a 45-row terminal unscrolled; the title page is set once
                yield Label("Title page: how every export credits the play")
                with Horizontal(classes="row"):
                    with Vertical(classes="wide"):
                        yield Label("Author (empty: the title page names no one)")
                        yield Input(play.author, id="play-author", placeholder="e.g. Ana Kay")
                    with Vertical():
                        yield Label("Credit")
                        yield Input(play.credit, id="play-credit", placeholder="Written by")
                    with Vertical():
                        yield Label("Draft date")
                        yield Input(play.draft_date, id="play-draft_date", placeholder="the run's day")
                    with Vertical(classes="wide"):
                        yield Label("Contact")
                        yield Input(contact_text(play.contact), id="play-contact", placeholder="how to reach you")
            yield Static(id="play-problems")
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", variant="primary", id="play-save")
                yield Button("Cancel", id="play-cancel")
            yield Label("In a text box: ctrl+a selects all, ctrl+l clears, ctrl+e opens $EDITOR; dim text is a hint, kept "
                        "if you leave the box empty. This run keeps its play; new runs read the saved one.",
                        classes="dialog-help")

    def on_mount(self) -> None:
        # the first field holds the keys typed as the editor opens, and Tab goes on from it
        self.query_one("#play-title", Input).focus()
        self._validate()

    def _value(self, field: str) -> str:
        widget = self.query_one(f"#play-{field}")
        if isinstance(widget, LongText):
            return widget.kept_text.strip()
        return self.query_one(f"#play-{field}", Input).value.strip()

    def _build(self) -> tuple[Play | None, dict[str, str]]:
        problems: dict[str, str] = {}
        updates = self._settings(problems)
        ego, others, superego, director = self._seats(problems)
        if problems:
            return None, problems
        data = self._play.model_dump()
        data.update(updates)
        data["cast"] = {
            "ego": ego.model_dump(),
            "others": [m.model_dump() for m in others],
            "superego": superego.model_dump() if superego else None,
            "director": director.model_dump() if director else None,
        }
        try:
            play = Play.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                loc = [str(x) for x in err["loc"] if not isinstance(x, int)]
                field = loc[-1] if loc else "play"
                problems.setdefault(field, err["msg"].lower())
            return None, problems
        seats: list[tuple[str, CastMember | None]] = [
            ("ego", ego), *(("others", m) for m in others), ("superego", superego), ("director", director)]
        self._unknown_characters(seats, problems)
        return (None if problems else play), problems

    def _settings(self, problems: dict[str, str]) -> dict[str, Any]:
        """Title, premise, turns and scenes; a count that is not a whole number is a problem, not a crash."""
        updates: dict[str, Any] = {"title": self._value("title"), "premise": self._value("premise")}
        for field in ("author", "credit", "draft_date"):
            updates[field] = self._value(field)
        # a contact of several lines shows on one; unchanged, it keeps its lines
        contact = self._value("contact")
        updates["contact"] = self._play.contact if contact == contact_text(self._play.contact).strip() else contact
        try:
            updates["turns"] = int(self._value("turns"))
        except ValueError:
            problems["turns"] = "write a whole number"
        briefs = [" ".join(p.split()) for p in self._value("scenes").split("\n\n") if p.strip()]
        if briefs:
            updates["scenes"] = rebrief(self._play.scenes, briefs)
        else:
            count = self._value("scene-count") or "1"
            try:
                updates["scenes"] = int(count)
            except ValueError:
                problems["scene-count"] = "write a whole number"
        return updates

    def _seats(
        self, problems: dict[str, str]
    ) -> tuple[CastMember, list[CastMember], SuperegoMember | None, CastMember | None]:
        """The cast as the form names it; a seat already in the play keeps the rest of its settings."""
        old = self._play.cast
        ego = (old.ego or CastMember(character=self._value("ego"))).model_copy(update={"character": self._value("ego")})
        names = [n.strip() for n in self._value("others").split(",") if n.strip()]
        others = [
            old.others[i].model_copy(update={"character": n}) if i < len(old.others) else CastMember(character=n)
            for i, n in enumerate(names)
        ]
        superego = self._superego(problems)
        director = None
        if self._value("director"):
            base_director = old.director or CastMember(character=self._value("director"))
            director = base_director.model_copy(update={"character": self._value("director")})
        return ego, others, superego, director

    def _superego(self, problems: dict[str, str]) -> SuperegoMember | None:
        if not self._value("superego"):
            return None
        base = self._play.cast.superego or SuperegoMember(character=self._value("superego"))
        strategy_updates: dict[str, Any] = {"character": self._value("superego")}
        for name, _ in STRATEGY_FIELDS:
            try:
                schedule = parse_schedule(self._value(name), base.schedule(name))
            except (ValueError, ValidationError) as exc:
                problems[name] = str(exc).splitlines()[0]
                continue
            # an unchanged setting keeps its old form, so the file does not change for nothing
            if schedule_text(schedule) != schedule_text(base.schedule(name)):
                strategy_updates[name] = schedule
        return base.model_copy(update=strategy_updates)

    def _unknown_characters(self, seats: list[tuple[str, CastMember | None]], problems: dict[str, str]) -> None:
        from studio.model.loading import character_path

        for label, member in seats:
            if member is not None and character_path(member.character, self._path) is None:
                problems.setdefault(label, f"no character '{member.character}' in characters/")

    def _validate(self) -> None:
        play, problems = self._build()
        self.valid = play
        self.problems = problems
        for widget in self.query("#play-fields Input, #play-fields TextArea"):
            name = (widget.id or "").removeprefix("play-")
            widget.set_class(name in problems or (name == "title" and "title" in problems), "-invalid")
        message = "  ".join(f"{field}: {problem}" for field, problem in problems.items())
        self.query_one("#play-problems", Static).update(Text(message or "Valid."))
        self.query_one("#play-problems").set_class(bool(problems), "-invalid")
        self.query_one("#play-save", Button).disabled = play is None

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _changed(self) -> None:
        self._validate()

    @on(LongText.Submitted)
    @on(Button.Pressed, "#play-save")
    def action_save(self) -> None:
        from studio.model.edit import save_model

        self._validate()
        if self.valid is None:
            self.notify("Not saved: " + "; ".join(f"{k}: {v}" for k, v in self.problems.items()), severity="error")
            return
        try:
            save_model(self.valid, self._path, previous=self._play)
        except InputError as exc:
            self.notify(f"Not saved: {exc.message}", severity="error")
            return
        except OSError as exc:
            self.notify(f"Not saved: {self._path}: {exc.strerror}", severity="error")
            return
        self.dismiss(self._path)

    @on(Button.Pressed, "#play-cancel")
    def action_cancel(self) -> None:
        self.close(lambda: self.dismiss(None))
