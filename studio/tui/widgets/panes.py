"""The side panes and the human's input box: thin shells over `studio.tui.views`.

Every pane keeps itself current: it hears each committed event and each redraw of the run as a message
(`studio.tui.messages`) and decides for itself what to draw, so the screen never has to know which panes
exist. A new pane subclasses `RunPane`, says when an event concerns it, and is composed on the screen.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from studio.present.words import TASK_VERBS
from studio.store import events as ev
from studio.tui import views
from studio.tui.messages import EventCommitted, HumanTurn, LineSelected, RunRedrawn

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


class RunPane:
    """A pane over the open run. Mixed into a widget: it keeps the engine and the take counts the latest
    message brought and redraws when a committed event `concerns` it. A pane that is costly to draw sets
    `lazy`: hidden, it waits until it is shown."""

    engine: EngineView | None = None
    takes: dict[int, tuple[int, int]] | None = None
    lens: str | None = None  # the character the run is viewed as (V), or None for everyone
    lazy = False
    _stale = False

    if TYPE_CHECKING:  # the widget a pane is mixed into has it

        def post_message(self, message: Message) -> bool: ...

    def concerns(self, event: Any) -> bool:
        """Whether a committed event changes what this pane says."""
        return True

    def redraw(self, latest: bool = True) -> None:
        """Draw the pane from `self.engine`; `latest`: scroll to what is new."""

    def _visible(self) -> bool:
        return not self.lazy or (isinstance(self, Widget) and self.display)

    def on_event_committed(self, message: EventCommitted) -> None:
        self.engine, self.takes = message.engine, message.takes
        if self.concerns(message.event):
            self._redraw_if_shown()

    def on_run_redrawn(self, message: RunRedrawn) -> None:
        self.engine, self.takes, self.lens = message.engine, message.takes, message.lens
        self._redraw_if_shown(message.latest)

    def _redraw_if_shown(self, latest: bool = True) -> None:
        if self.engine is None:
            return
        if self._visible():
            self._stale = False
            self.redraw(latest)
        else:
            self._stale = True  # drawn once it is shown: a hidden pane costs nothing while the run moves

    def on_show(self) -> None:
        if self._stale and self.engine is not None:
            self._stale = False
            self.redraw()


class BackstagePane(RunPane, VerticalScroll):
    """Everything that shaped the selected stage line."""

    BORDER_TITLE = "Backstage"
    lazy = True
    selected: int | None = None
    _timer: Any = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Opening…", style="dim"), id="backstage")

    def concerns(self, event: Any) -> bool:
        return not event.on_stage  # a line's own commit moves the stage's cursor, which says so

    def on_event_committed(self, message: EventCommitted) -> None:
        self.engine, self.takes = message.engine, message.takes
        if self.concerns(message.event):
            self._later(message.soon)

    def on_line_selected(self, message: LineSelected) -> None:
        self.selected = message.event_id
        self._later(message.soon)

    def _later(self, soon: bool) -> None:
        """`soon`: while the engine writes, explain at most a few times a second; each explanation
        reflows the side pane, and a frame spent there is a frame late for the next token."""
        if not soon:
            self._redraw_if_shown()
        elif self._timer is None:
            self._timer = self.set_timer(0.2, self._redraw_if_shown)

    def redraw(self, latest: bool = True) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.engine is not None:
            self.query_one("#backstage", Static).update(
                views.backstage(self.engine, self.selected, self.takes, self.lens)
            )


class NotesPane(RunPane, Vertical):
    """Scene briefs, the director's interventions and the playwright's notes, with a box for a new note."""

    BORDER_TITLE = "Director's notes"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="notes-scroll"):
            yield Static(id="notes")
        yield Input(placeholder="A note for the next turn ⏎", id="note-input")

    _count = 0

    def concerns(self, event: Any) -> bool:
        return (event.kind in (ev.NOTE, ev.CONTROL, ev.ERROR, ev.SCENE) or event.role == "director"
                or (event.origin == "human" and not event.on_stage))

    def redraw(self, latest: bool = True) -> None:
        """Scrolls to a note only when one was added; a run just opened starts at its briefs."""
        if self.engine is not None:
            self.show(self.engine, latest)

    def show(self, engine: EngineView, latest: bool = True) -> None:
        self.query_one("#notes", Static).update(views.notes(engine))
        count = views.note_count(engine)
        if latest and count > self._count:
            # held at the bottom by the layout itself, which knows the new height; scrolling up lets go
            self.query_one("#notes-scroll", VerticalScroll).anchor()
        self._count = count


class CastPane(RunPane, OptionList):
    """The cast with the prompt each is playing under now; Enter edits the highlighted sheet, `c` offers it
    first among the others."""

    BORDER_TITLE = "Cast"

    def concerns(self, event: Any) -> bool:
        return event.kind in (ev.REWRITE_PROMPT, ev.CONTROL)

    def redraw(self, latest: bool = True) -> None:
        if self.engine is not None:
            self.show(self.engine)

    def show(self, engine: EngineView) -> None:
        highlighted = self.highlighted
        self.clear_options()
        for role in engine.cast.roles:
            self.add_option(Option(views.role_card(engine, role), id=role.key))
            self.add_option(None)
        if engine.cast.roles:
            self.highlighted = highlighted if highlighted is not None else 0

    @property
    def role_key(self) -> str | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return option.id

    def highlight_role(self, key: str) -> None:
        """The pane points at the character being edited, so Enter afterwards edits the same one."""
        with suppress(OptionDoesNotExist):
            self.highlighted = self.get_option_index(key)


KEYS_SAID = " (Enter sends, Esc pauses)"
"""How the line's box is answered, said once: in its placeholder, or, when what is asked wraps above the
box, by the box's own placeholder alone."""


class HumanInput(Vertical):
    """Opens when a human role's step comes: marked with the role and character it speaks for. It owns the
    turn: the engine's worker awaits `ask`, and Enter in the box (or a line from $EDITOR) answers it."""

    answer: asyncio.Future[str] | None = None
    history: list[str] = []  # what the playwright typed before, newest last: ↑ and ↓ bring it back
    _back = 0  # how far back ↑ has gone; 0: the line being typed
    _before: str | None = None  # what the box held before the model drafted into it (ctrl+g); Esc gives it back
    _drafts = 0  # which draft the streamed pieces belong to: those of a dropped draft are ignored
    _draft_job: Any = None
    _role = ""  # whose line the box waits for

    class Drafted(Message):
        """A piece of the role model's draft (None: it starts over), or the whole draft as guarded."""

        def __init__(self, draft: int, token: str | None, whole: str | None = None) -> None:
            super().__init__()
            self.draft, self.token, self.whole = draft, token, whole

    _hint = ""

    def compose(self) -> ComposeResult:
        yield Label(id="human-label")
        yield Static(id="human-hint")
        yield Input(id="human-line")

    def on_key(self, event: events.Key) -> None:
        """↑ and ↓ in the box walk through the lines typed before, as in a shell."""
        line = self.query_one("#human-line", Input)
        if event.key not in ("up", "down") or not line.has_focus or not self.history:
            return
        event.stop()
        event.prevent_default()
        if event.key == "up":
            self._back = min(self._back + 1, len(self.history))
        else:
            self._back = max(self._back - 1, 0)
        line.value = self.history[-self._back] if self._back else ""
        line.cursor_position = len(line.value)

    def on_mount(self) -> None:
        self.display = False

    @property
    def waiting(self) -> bool:
        return self.answer is not None and not self.answer.done()

    async def ask(self, engine: EngineView, pending: Any) -> str:
        self.answer = asyncio.get_running_loop().create_future()
        self.post_message(HumanTurn(pending, engine))
        try:
            return await self.answer
        finally:
            self.answer = None
            self.close()

    def give(self, text: str) -> None:
        self._end_draft()
        if self.waiting:
            assert self.answer is not None
            self.answer.set_result(text)

    def on_human_turn(self, message: HumanTurn) -> None:
        """Queued behind the tokens and events before it: the box opens once the stage shows them."""
        if not self.waiting:
            return  # paused before the box could open
        from studio.engine.forms.base import refusal

        engine, pending = message.engine, message.pending
        role, task = pending.role, pending.step.task
        self._role = role.name
        label = f"{role.name.upper()} ({role.key}) · {TASK_VERBS.get(task, task)} · your line"
        say = f"Your turn as {role.name} ({role.key}): type the line, Enter sends, Esc pauses."
        choices = engine.form.choices(engine.state, pending.step, role) if engine is not None else []
        answer = engine.form.answer_format(engine.state, pending.step, role) if engine is not None else None
        if choices:  # a move or a vote: say what the rules allow rather than let the player guess
            say = f"Your turn as {role.name}: one of " + " · ".join(choices) + ". Enter sends, Esc pauses."
        elif answer:  # goals, a summary, impressions: what is asked and how it is read, not "your line"
            label = f"{role.name.upper()} ({role.key}) · {TASK_VERBS.get(task, task)} · your answer"
            say = f"Your turn as {role.name}: {answer}. Enter sends, Esc pauses."
        refused = refusal(engine.path, role.key) if engine is not None else None
        if refused:  # the answer before was refused: say why, and ask again, never let the turn go unsaid
            say = f"That could not be used: {refused}. {say}"
            label = f"{label} · asked again"
            self.notify(f"That could not be used: {refused}", severity="warning", markup=False)
        self.post_message(self.Opened(say))
        if engine is not None:  # the run's own human lines first, so a reopened run remembers them too
            typed = [e.text for e in engine.path if e.origin == "human" and e.on_stage]
            self.history = list(dict.fromkeys(typed + [t for t in self.history if t not in typed]))
        hint = ("one of: " + " · ".join(choices)) if choices else (answer or f"{role.name}'s line")
        if refused:
            hint = f"that could not be used ({refused}); {hint}"
        self.open(label, hint + KEYS_SAID)

    @on(Input.Submitted, "#human-line")
    def _line(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.notify("Type the line first; Esc pauses instead.", severity="warning")
            return
        self.history = [t for t in self.history if t != text] + [text]
        self._back = 0
        self.give(text)

    class Opened(Message):
        """The box is open: `say` is what the activity line tells the playwright."""

        def __init__(self, say: str) -> None:
            super().__init__()
            self.say = say

    def open(self, label: str, placeholder: str) -> None:
        self.query_one("#human-label", Label).update(Text(label))
        line = self.query_one("#human-line", Input)
        line.value = ""
        self._hint = placeholder
        self._fit_hint()
        self.display = True
        line.focus()
        self.call_after_refresh(self._fit_hint)
        clear = getattr(self.app, "clear_passing_notes", None)
        if clear is not None:
            clear()  # the box's label sits where the toasts do

    def close(self) -> None:
        self._end_draft()
        self.display = False

    # -- the role's model drafts the line (ctrl+g) -----------------------------------------------

    def draft(self, engine: EngineView) -> None:
        """Ask the role's model for this line into the box, streamed; nothing is said until Enter. What
        the box held first is kept for Esc, however many drafts follow."""
        line = self.query_one("#human-line", Input)
        if self._before is None:
            self._before = line.value
        self._end_draft(keep=True)
        self._drafts += 1
        line.value = ""
        self.post_message(self.Opened(f"… {self._role}'s model drafts the line: edit it, Enter says it, Esc puts "
                                      "back what you had"))
        self._draft_job = self.run_worker(self._draft(engine, self._drafts), group="draft", exclusive=True,
                                          exit_on_error=False)

    async def _draft(self, engine: EngineView, draft: int) -> None:
        try:
            def streamed(token: str | None) -> None:
                self.post_message(self.Drafted(draft, token))

            whole = await engine.draft(streamed)
        except Exception as exc:  # noqa: BLE001 - a model that fails leaves the box as it was
            self.post_message(self.Drafted(draft, None, ""))
            self.notify(f"No draft: {exc}", severity="warning", markup=False)
            return
        self.post_message(self.Drafted(draft, None, whole))

    def on_human_input_drafted(self, message: Drafted) -> None:
        if message.draft != self._drafts or self._before is None:
            return  # a draft dropped by Esc, or the line already said
        line = self.query_one("#human-line", Input)
        if message.whole is not None:  # the guarded draft in place of the raw stream; nothing: as it was
            line.value = message.whole or self._before
        elif message.token is None:
            line.value = ""
        else:
            line.value += message.token
        line.cursor_position = len(line.value)

    def drop_draft(self) -> bool:
        """Esc after ctrl+g: the draft goes, the box holds what it held before. False: no draft to drop."""
        if self._before is None or not self.display:
            return False
        line = self.query_one("#human-line", Input)
        line.value = self._before
        line.cursor_position = len(line.value)
        self._end_draft()
        self.post_message(self.Opened("The draft is dropped: your text is back. Enter sends, Esc pauses."))
        return True

    def _end_draft(self, keep: bool = False) -> None:
        self._drafts += 1
        if self._draft_job is not None:
            self._draft_job.cancel()
            self._draft_job = None
        if not keep:
            self._before = None

    @property
    def asked(self) -> str:
        """What the box asks for and how the answer is read, as shown (above the box or in it)."""
        return self._hint

    def on_resize(self) -> None:
        self._fit_hint()

    def _fit_hint(self) -> None:
        """What is asked and how it is read, whole: in the box's placeholder when it fits on its row, else
        wrapped above the box. A vote's choices or the example for goals ran off a one-row placeholder at 80
        columns, with nothing to say they were cut."""
        from rich.cells import cell_len

        hint = self.query_one("#human-hint", Static)
        line = self.query_one("#human-line", Input)
        room = (self.size.width or self.app.size.width) - 2  # the box's padding
        whole = cell_len(self._hint) <= room
        hint.display = not whole
        hint.update(Text(self._hint.removesuffix(KEYS_SAID)))  # the box under it says the keys
        line.placeholder = self._hint if whole else "type here · Enter sends, Esc pauses"
