"""An ensemble's controls in the app: who speaks next (`w`), entrances and exits (`E`), and the run
seen through one character's eyes (`V`). A group of the run screen's controls, as the cast's are.

Every choice is the engine call the CLI makes (`pick`, `switch_policy`, `stage_move`), so each is an
event that rewinds, takes and resumes replay; viewing as a character changes nothing in the run.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from studio.store import events as ev
from studio.tui import ensemble_views as ens
from studio.tui.screens.modal import Dialog
from studio.tui.screens.failures import finished
from studio.tui.screens.group import ControlGroup

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView

POLICY_HELP = {
    "alternate": "the next one on stage after the last speaker",
    "round_robin": "the same rotation, in cast order",
    "moderator": "the other one of two, or whoever the last line names; else the moderator's model picks",
    "director": "the director picks, and may direct or move",
    "mentions": "whoever the last line names answers it",
    "random": "one on stage at random, never the last speaker twice",
    "human": "you pick every speaker",
}


class WhoNextScreen(Dialog):
    """The characters on stage, the policy's suggestion first and marked; then the policies.

    Dismisses with ("pick", name), ("policy", policy) or None (Esc).
    """

    def __init__(self, choices: list[str], suggestion: str | None, policy: str, policies: tuple[str, ...],
                 waiting: bool = False, why: str = "") -> None:
        super().__init__()
        self._choices, self._suggestion, self._policy, self._why = choices, suggestion, policy, why
        self._policies, self._waiting = policies, waiting

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="who-dialog"):
            title = "Who speaks next? It is your pick" if self._waiting else "Who speaks next"
            yield Label(f"{title} · policy: {self._policy}", classes="dialog-title")
            options: list[Option | None] = []
            for name in self._choices:
                text = Text(name, style="bold")
                if name == self._suggestion:
                    text.append(f"   ← suggested: {self._why}" if self._why else "   ← suggested", style="green")
                options.append(Option(text, id=f"pick:{name}"))
            if not self._choices:
                options.append(Option(Text("Nobody is on stage: E brings someone on.", style="dim"), disabled=True))
            options.append(None)
            options.append(Option(Text("Or who decides, from the next turn on:", style="italic"), disabled=True))
            for policy in self._policies:
                text = Text("● " if policy == self._policy else "  ")
                text.append(f"{policy:<12}", style="bold" if policy == self._policy else "")
                text.append(f" {POLICY_HELP.get(policy, '')}", style="dim")
                options.append(Option(text, id=f"policy:{policy}"))
            yield OptionList(*options, id="who-list")
            help_ = ("Enter on a character: they speak next. On a policy: it decides from the next turn on. "
                     + ("Esc pauses the run." if self._waiting else "Esc closes."))
            if self._policy in ("moderator", "director"):
                help_ += f" The {self._policy}'s model is asked only when you step, so it is not the suggestion."
            yield Label(help_, classes="dialog-help")

    @on(OptionList.OptionSelected, "#who-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        kind, _, value = (event.option.id or "").partition(":")
        if kind in ("pick", "policy"):
            self.dismiss((kind, value))


class CharacterChoiceScreen(Dialog):
    """One character of the cast, chosen for a stage move or a point of view; dismisses with its name."""

    def __init__(self, title: str, rows: list[tuple[str, Text]], help_: str, dialog_id: str) -> None:
        super().__init__()
        self._title, self._rows, self._help, self._id = title, rows, help_, dialog_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id=self._id):
            yield Label(self._title, classes="dialog-title")
            yield OptionList(*(Option(text, id=name) for name, text in self._rows), id=f"{self._id}-list")
            yield Label(self._help, classes="dialog-help")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class VoicesScreen(Dialog):
    """Each inner voice's three strategies; Enter flips the highlighted one at once (a control event)."""

    def __init__(self, rows: list[tuple[str, str, dict[str, bool]]], on_switch: Any) -> None:
        super().__init__()
        self._rows, self._on_switch = rows, on_switch

    def _label(self, title: str, name: str, on: bool) -> Text:
        from studio.present.words import STRATEGY_LABELS

        text = Text("● on   " if on else "○ off  ", style="green" if on else "dim")
        text.append(f"{title} · ", style="bold")
        text.append(STRATEGY_LABELS[name].split(" ", 1)[1])
        return text

    @staticmethod
    def _whole(title: str, states: dict[str, bool]) -> Text:
        """The one switch for a voice: all of its strategies at once."""
        on = sum(states.values())
        mark = ("● on   ", "green") if on == len(states) else (("○ off  ", "dim") if not on else ("◐ some ", "yellow"))
        text = Text(mark[0], style=mark[1])
        text.append(f"{title} · ", style="bold")
        text.append("the whole inner voice", style="italic")
        return text

    def compose(self) -> ComposeResult:
        options: list[Option] = []
        for key, title, states in self._rows:
            options.append(Option(self._whole(title, states), id=f"{key}|*"))
            options += [Option(self._label(title, name, on), id=f"{key}|{name}") for name, on in states.items()]
        with Vertical(classes="dialog", id="voices-dialog"):
            yield Label("The inner voices' strategies", classes="dialog-title")
            yield OptionList(*options, id="voices-list")
            yield Label("Enter switches the highlighted strategy of that voice alone, or on a voice's first row "
                        "the whole voice, from the next step on. Esc closes.", classes="dialog-help")

    @on(OptionList.OptionSelected, "#voices-list")
    def _flip(self, event: OptionList.OptionSelected) -> None:
        key, _, name = (event.option.id or "").partition("|")
        for voice, title, states in self._rows:
            if voice != key:
                continue
            if name == "*":  # all on unless all are on already; each switch is its own control event
                target = not all(states.values())
                names = [n for n, on in states.items() if on != target]
            else:
                target, names = not states[name], [name]
            for each in names:
                states[each] = target
                self._on_switch(key, each, target)
                event.option_list.replace_option_prompt(f"{key}|{each}", self._label(title, each, target))
            event.option_list.replace_option_prompt(f"{key}|*", self._whole(title, states))


class EnsembleControls(ControlGroup):
    lens: str | None = None  # the character the stage is seen as (V), or None for everyone

    def _ensemble_ready(self, what: str, offered: Callable[[EngineView], bool] = ens.is_ensemble) -> bool:
        """The run is open and its form offers the control (`offered`: asked of the engine)."""
        if not self._ready():
            return False
        if not offered(self.engine):
            self.notify(f"{what} needs an ensemble play (form = \"ensemble\"); this play's order of speakers and "
                        "its stage are fixed.", severity="warning")
            return False
        return True

    def _scene_open(self) -> bool:
        """A pick or a stage move made before a scene heading would be undone by the scene's own cast."""
        pending = self.engine.pending()
        if pending is not None and pending.step.kind == ev.SCENE:
            self.notify(f"Scene {pending.step.scene} sets who is on stage as it opens: s opens it, then choose.",
                        severity="warning")
            return False
        return True

    # -- who speaks next (w) ------------------------------------------------------------------

    def _who_screen(self, waiting: bool) -> WhoNextScreen:
        from studio.model.play import POLICIES

        engine = self.engine
        return WhoNextScreen(engine.stage_choices(), engine.suggestion(), engine.policy() or "", POLICIES, waiting,
                             ens.suggestion_reason(engine))

    async def action_who_next(self) -> None:
        if not self._ensemble_ready("Choosing who speaks next", lambda engine: engine.picks_speaker):
            return
        if self.engine.finished:
            self.report(finished())
            return
        await self.pause()
        if not self._scene_open():
            return
        state = self.engine.state
        if state.phase in ("critique", "revise") and state.speaker:
            name = self.engine.cast.role(state.speaker).name
            self.notify(f"{name} is in the middle of a line: s finishes it, then w picks the next speaker.",
                        severity="warning")
            return
        self.app.push_screen(self._who_screen(False), self._who_chosen)

    def _who_chosen(self, result: tuple[str, str] | None) -> None:
        if result is None or self.screen.engine is None:
            return
        kind, value = result
        try:
            if kind == "policy":
                self._switch_policy(value)
                return
            self.engine.pick(value)
        except ValueError as exc:
            self.notify(str(exc), title="Cannot do that", severity="error", timeout=10)
            return
        self.refresh_panes()
        self.notify(f"{value} speaks now.")  # the turn starts at once: "next" read as a line still to come
        self._start(self.screen.turns.step_turn())

    def _switch_policy(self, policy: str) -> None:
        if policy == self.engine.policy():
            self.notify(f"Who speaks next is already decided by: {policy}.")
            return
        self.engine.switch_policy(policy)
        self.refresh_panes()
        self._set_activity(self._idle_hint())
        self.notify(f"Who speaks next, from now on: {policy} ({POLICY_HELP.get(policy, '')}).")

    async def ask_pick(self, pending: Any) -> str:
        """The policy leaves the next speaker to the playwright: the dialog opens by itself. Esc, or a
        switch of policy, stops the turn with nothing written (the worker ends as paused)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def chosen(result: Any) -> None:
            if not answer.done():
                answer.set_result(result)

        self._set_activity("Who speaks next? Your pick: choose in the dialog, Esc pauses.")
        screen = self._who_screen(True)
        self.app.push_screen(screen, chosen)
        try:
            result = await answer
        finally:
            if self.app.screen is screen:  # paused or quitting while the dialog was open
                with suppress(Exception):
                    screen.dismiss(None)
        if result is not None and result[0] == "pick":
            return str(result[1])
        if result is not None:
            self._switch_policy(result[1])
        raise asyncio.CancelledError

    # -- the inner voices' strategies (v, in an ensemble) -------------------------------------

    def voices_dialog(self) -> None:
        switches = ens.voice_switches(self.engine)
        if not switches:
            self.notify("No character of this run has an inner voice.", severity="warning")
            return
        rows = []
        for key, states in switches.items():
            owner = self.engine.cast.role(key[: -len(".voice")]).name
            rows.append((key, f"{self.engine.cast.role(key).name} ({owner})", states))
        self.app.push_screen(VoicesScreen(rows, self.switch_voice))

    def switch_voice(self, voice: str, name: str, enabled: bool) -> None:
        self.engine.switch_strategy(name, enabled, voice=voice)
        self.refresh_panes()
        who = self.engine.cast.role(voice).name
        self.notify(f"{who}: {name.replace('_', ' ')} {'on' if enabled else 'off'} from the next step.")

    # -- entrances and exits (E) --------------------------------------------------------------

    async def action_enter_exit(self) -> None:
        if not self._ensemble_ready("Sending characters on and off", lambda engine: engine.stage_moves):
            return
        await self.pause()
        if self.engine.finished or not self._scene_open():
            return
        here = ens.on_stage(self.engine)
        rows = []
        for role in ens.characters(self.engine):
            text = Text(role.name, style="bold")
            text.append("   on stage: Enter sends them off" if role.key in here else "   off stage: Enter brings them on",
                        style="" if role.key in here else "dim")
            rows.append((role.name, text))
        self.app.push_screen(
            CharacterChoiceScreen("Enter or exit", rows, "The stage shows the entrance or exit as a direction; "
                                  "from then on the character witnesses only what is said while on stage. Esc closes.",
                                  "move-dialog"),
            self._moved,
        )

    def _moved(self, name: str | None) -> None:
        if name is None or self.screen.engine is None:
            return
        role = self.engine.character(name)
        try:
            event = self.engine.stage_move(name, role.key not in ens.on_stage(self.engine))
        except ValueError as exc:
            self.notify(str(exc), title="Cannot do that", severity="error", timeout=10)
            return
        self.refresh_panes()
        self._set_activity(self._idle_hint())
        self.notify(event.text)

    # -- view as (V) --------------------------------------------------------------------------

    def action_view_as(self) -> None:
        if self.lens is not None:
            self.set_lens(None)
            return
        if not self._ensemble_ready("Viewing the run as one character"):
            return
        here = ens.on_stage(self.engine)
        rows = []
        for role in ens.characters(self.engine):
            text = Text(role.name, style="bold")
            text.append("   on stage now" if role.key in here else "   off stage now", style="dim")
            rows.append((role.name, text))
        self.app.push_screen(
            CharacterChoiceScreen("View the run as", rows, "The stage shows only what that character witnessed, "
                                  "as they heard it; V again shows everyone. Nothing in the run changes. Esc closes.",
                                  "lens-dialog"),
            self.set_lens,
        )

    def set_lens(self, name: str | None) -> None:
        if self.screen.engine is None:
            return
        self.lens = name
        self.resync()
        self.notify(f"The stage as {name} knows it: V shows everyone again." if name else "The stage shows everyone.")

    def stage_events(self) -> list[Any]:
        """The stage lines the screen shows: all of them, or those the lens character witnessed."""
        if self.lens is None:
            return self.engine.stage()
        return ens.through_eyes(self.engine, self.lens)

    def lens_blind(self) -> bool:
        """While viewing as a character, a line being written off its stage is not streamed to it."""
        if self.lens is None:
            return False
        return self.engine.character(self.lens).key not in ens.on_stage(self.engine)

    def lens_committed(self, event: Any) -> None:
        """While viewing as a character, the stage is drawn again through its eyes for each new line, and
        for each rewrite of what it heard."""
        if event.on_stage:
            self.screen.note_take(event)
        if event.on_stage or event.kind == ev.REWRITE_SPEECH:
            self.resync()

