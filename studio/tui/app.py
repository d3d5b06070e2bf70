"""The studio app: a picker of plays and runs, and a screen per open run.

Start-up is kept to Textual and the run store: the engine, pydantic's models and litellm are loaded
after the first frame (the engine in the worker that opens the run, litellm on a background thread
once a run is open), so the window appears at once and the first model call does not pay for the
import.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.filter import LineFilter

from studio.tui.commands import ControlsProvider
from studio.tui.contrast import Legible
from studio.tui.controls import GLOBAL
from studio.tui import textual_parts
from studio.tui.escapes import settle_escapes

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView
    from studio.tui.studio_view import StudioView

CRITIQUE_VIEW = "studio.tui.critique"
"""A module that, once it exists, provides `CritiqueScreen(engine)`: the `k` control shows it instead of
the plain list of stored critiques."""


class StudioApp(App[None]):
    CSS_PATH = "studio.tcss"
    TITLE = "studio"
    BINDINGS = [control.binding() for control in GLOBAL]
    COMMANDS = App.COMMANDS | {ControlsProvider}

    def __init__(
        self,
        store: Any,
        *,
        play: tuple[Path, Any, dict[str, Any]] | None = None,
        run_id: int | None = None,
        roles: dict[str, str] | None = None,
        model: str | None = None,
        gateway: Any = None,
        plays_dir: Path = Path("plays"),
        name: str | None = None,
    ) -> None:
        super().__init__()
        unsettled = settle_escapes()
        if unsettled:
            self.log.warning(f"Esc waits as Textual makes it wait: {unsettled}")
        for feature, why in textual_parts.missing().items():
            self.log.warning(f"Textual's own behaviour instead of {feature}: {why}")
        self.store = store
        self._engine: EngineView | None = None
        # The run on screen is leased to this window (studio/store/leases.py), so no other process deletes
        # it while it plays here; a heartbeat renews the lease while the app lives.
        from studio.store.leases import holder_name

        self._holder = holder_name(name)  # a window is a person: `studio open --name`, or a tab's name
        self._beating: threading.Event | None = None
        self._fresh: set[int] = set()  # runs this app created: cleared away if left without a line
        self.gateway = gateway
        self.model = model
        self.roles = dict(roles or {})
        self.plays_dir = plays_dir
        self._start_play = play
        self.pane_layout: dict[str, object] | None = None
        self._start_run = run_id
        # A play named on the command line and not read yet: bad input found after the first frame ends
        # the app, and `studio open` prints it and exits 2, as if it had been found before the app started.
        self._leave_on_bad_input = play is not None and play[1] is None
        self.bad_input: Any = None
        self._first_frame_at: float | None = None
        self._warm_wanted = False
        self._held_keys: list[events.Key] = []
        self._key_in_flight = False
        self._held_since = 0.0
        self._scratch: Any = None  # a browser tab's folder for exports on their way to the browser
        self._legible = Legible()
        self._remember_theme()

    def on_mount(self) -> None:
        self._quiet_collector()
        from studio import settings

        self.theme_changed_signal.subscribe(self, lambda theme: settings.save(theme=theme.name))
        # a window closed by a crash before its run's first line left an empty run behind
        self.store.remove_stale_empty_runs(keep=self._start_run)
        if self._start_play is not None:
            path, cast, options = self._start_play
            if cast is None:
                self.open_play(path, title=options.get("title"))
            else:
                self._open_cast(cast, options)
        elif self._start_run is not None:
            self.open_run(self._start_run, self.roles)
        else:
            self.show_picker(first=True)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then every letter made readable on its background (studio/tui/contrast.py)."""
        return [*super().get_line_filters(), self._legible]

    def _remember_theme(self) -> None:
        """The theme chosen last time (from the palette) comes back; a theme no longer offered is ignored.
        Set before the app runs: set once it has, the whole stylesheet was applied twice before the first
        frame, a few tens of milliseconds."""
        from studio import settings

        chosen = settings.load().get("theme")
        if isinstance(chosen, str) and chosen in self.available_themes:
            self.theme = chosen

    # -- frames on time ----------------------------------------------------------------------

    def _quiet_collector(self) -> None:
        """Full garbage collections are taken off Python's schedule, which lets garbage pile up into a
        collection of a few hundred milliseconds with a long run open, and run on a clock instead: in
        the playwright's pauses, and every quarter minute at the latest, so each stays short."""
        gen0, gen1, _ = gc.get_threshold()
        gc.set_threshold(gen0, gen1, 1_000_000)
        self._last_input = time.monotonic()
        self._last_collect = time.monotonic()
        self.set_interval(0.5, self._collect_when_quiet)

    def _collect_when_quiet(self) -> None:
        now = time.monotonic()
        idle = now - self._last_input
        if self._warm_wanted and idle > 1.5:
            self._start_warm_up()
        # Often enough that a full collection stays a few tens of milliseconds even under non-stop input.
        if (idle > 1.0 and now - self._last_collect > 5.0) or now - self._last_collect > 15.0:
            gc.collect()
            self._last_collect = time.monotonic()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseEvent)):
            self._last_input = time.monotonic()
        if isinstance(event, events.Key) and not event.is_forwarded:
            if not self._pass_key(event):
                return
            target = self.focused or self.screen
            await super().on_event(event)  # handed to `target`'s queue (or a priority binding ran)
            if getattr(event, "_studio_followed", False):
                self._follow_key(target)
            return
        await super().on_event(event)

    # -- keys typed faster than a screen opens or closes ------------------------------------------

    def _pass_key(self, key: events.Key) -> bool:
        """One key at a time reaches the screens: each goes on once the one before it has been handled. A
        key can open or close a dialog (`:`, Esc), and Textual hands every key already typed to the widget
        focused when it arrived, so `:` `s9` Esc `:` `foo` typed in one breath lost `foo` or put it into the
        jump box that was closing. Keys typed at human speed never wait; a burst waits its turn, except
        letters typed into a text box, which open and close nothing (see `_types_in_place`)."""
        if getattr(key, "_studio_released", False):
            return True
        if self._key_in_flight or self._held_keys:
            self._held_keys.append(key)
            if len(self._held_keys) == 1:
                # a key whose widget went away before handling it would hold the rest for ever
                self._held_since = time.monotonic()
                self.set_timer(0.3, self._key_watchdog)
            return False
        self._follow(key)
        return True

    def _follow(self, key: events.Key) -> None:
        """Mark a key the next waits for, unless it only types into the box that has the focus."""
        if not self._types_in_place(key):
            self._key_in_flight = True
            key._studio_followed = True  # type: ignore[attr-defined]  # a mark on Textual's event, read in on_event

    def _types_in_place(self, key: events.Key) -> bool:
        """A printable key bound to nothing before the box with the focus is typed into that box and moves no
        focus, so the key after it need not wait. Waiting for each key to climb the screen's widgets one
        at a time made 200 keys pasted or typed on a busy machine take seconds to appear."""
        from textual.widgets import Input, TextArea

        focused = self.focused
        if not key.is_printable or not isinstance(focused, (Input, TextArea)):
            return False
        if isinstance(focused, TextArea) and focused.read_only:
            return False
        bound = self.active_bindings.get(key.key)
        return bound is None or not bound.binding.priority

    def _key_watchdog(self) -> None:
        if self._held_keys and time.monotonic() - self._held_since >= 0.3:
            self._release_key()

    def _follow_key(self, start: Any) -> None:
        """Walk behind the key from the widget it goes to up to the app: each queue passed has handled it (a
        key no one binds bubbles to the parent before the walk reaches it); then wait for a screen it opened."""
        def climb(node: Any) -> None:
            parent = node.parent
            if parent is None or node is self:
                self._key_landed()
            else:
                parent.call_later(climb, parent)

        start.call_later(climb, start)

    def _key_landed(self) -> None:
        if not self.screen.is_mounted:  # a screen the key opened has not focused its field yet
            self.set_timer(0.005, self._key_landed)
            return
        self.call_later(self._release_key)

    def _release_key(self) -> None:
        self._key_in_flight = False
        while self._held_keys and not self._key_in_flight:  # keys typed in place go on together, in order
            self._held_since = time.monotonic()
            held = self._held_keys.pop(0)
            key = events.Key(held.key, held.character)
            key._studio_released = True  # type: ignore[attr-defined]  # a mark on Textual's event, read in _pass_key
            self._follow(key)
            self.post_message(key)

    def on_unmount(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()
        if self._beating is not None:
            self._beating.set()
        if self._engine is not None:
            self._leave(self._engine)
            self.clear_away(self._engine.run_id)
        gen0, gen1, _ = gc.get_threshold()
        gc.set_threshold(gen0, gen1, 10)

    # -- the first frame -------------------------------------------------------------------

    def first_frame(self) -> bool:
        """Called once the first screen has been drawn: the benchmark's and the hygiene test's mark.

        True when the app is to stop there (a probe asked for it), so the screen opens nothing.
        """
        if self._first_frame_at is not None:
            return False
        self._first_frame_at = time.time()
        if not gc.isenabled():
            # Off from the command line to here (`studio open`). What the start built is kept for the
            # app's life: set aside, no collection walks it again (turned on with it all still young, the
            # first collection walked every object of the start at once).
            gc.freeze()
            gc.enable()
        probe = os.environ.get("STUDIO_TUI_PROBE")
        if probe:
            Path(probe).write_text(
                json.dumps({
                    "first_frame": self._first_frame_at,
                    # CPU seconds the process spent getting here: on a shared machine, the figure that
                    # does not grow with other people's load.
                    "cpu": time.process_time(),
                    "litellm": "litellm" in sys.modules,
                    "pydantic": "pydantic" in sys.modules,
                })
            )
            if os.environ.get("STUDIO_TUI_PROBE_EXIT") == "1":
                self.exit()
                return True
        return False

    def warm_up(self) -> None:
        """Import litellm off the loop once the playwright pauses, so the first step streams at once.

        Not at once: the import holds the interpreter for a tenth of a second at a time here and there
        over a few seconds, which would stutter a screen being scrolled.
        """
        if "litellm" in sys.modules or os.environ.get("STUDIO_TUI_NO_WARMUP") == "1":
            return
        self._warm_wanted = True

    def _start_warm_up(self) -> None:
        self._warm_wanted = False
        if "litellm" in sys.modules:
            return
        from studio.llm.litellm_loader import warm_up as load

        def warm() -> None:
            load()
            # litellm leaves a heap of long-lived objects; without this every full collection walks them
            # all and stalls a frame for a tenth of a second.
            gc.freeze()

        threading.Thread(target=warm, name="studio-warm-up", daemon=True).start()

    # -- opening runs ----------------------------------------------------------------------

    @property
    def engine(self) -> EngineView | None:
        return self._engine

    @engine.setter
    def engine(self, engine: EngineView | None) -> None:
        """The run on screen; the one it replaces is cleared away if this app made it and nothing was written."""
        old = self._engine
        self._engine = engine
        if old is not None and (engine is None or engine.run_id != old.run_id):
            self._leave(old)
            self.clear_away(old.run_id)
        if engine is not None:
            self._hold(engine.run_id)

    def seat(self, engine: EngineView) -> None:
        """The engine plays for this window: the roles it takes are held in the window's name, for as long
        as the window holds the run's lease, so other windows on the run leave their lines to this one."""
        engine.holder = self._holder
        self.store.hold(engine.run_id, self._holder)

    def _leave(self, engine: EngineView) -> None:
        """This window stops playing a run: the roles it holds go back to their models, said in the run's
        log, and its lease ends. A run that moved on or went meanwhile is left as it is: the lease's end
        alone frees the roles, since the next window to look hands them back."""
        from studio.store import StoreError

        try:
            engine.leave()
        except StoreError:
            pass
        self.store.let_go(engine.run_id, self._holder)

    def _hold(self, run_id: int) -> None:
        from studio.store.leases import heartbeat

        self.store.hold(run_id, self._holder)
        if self._beating is None:
            def renew() -> None:
                if self._engine is not None:
                    self.store.renew(self._engine.run_id, self._holder)

            self._beating = heartbeat(renew, "run-lease")

    def clear_away(self, run_id: int) -> bool:
        """Remove a run this app created that the playwright left with no line, take mark or critique, so
        opening a play to look at it does not leave an empty run in the lists. A run opened from the
        store is never removed here, empty or not. True if it went."""
        if run_id not in self._fresh:
            return False
        self._fresh.discard(run_id)
        return bool(self.store.remove_if_empty(run_id))

    def show_picker(self, first: bool = False) -> None:
        from studio.tui.screens.picker import PickerScreen

        if self._engine is not None and self.clear_away(self._engine.run_id):
            self._engine = None  # nothing to go back to

        picker = PickerScreen(self.plays_dir, can_go_back=self.engine is not None)
        if first:
            self.push_screen(picker)
        else:
            self.switch_screen(picker)

    def back_to_run(self) -> None:
        if self.engine is not None:
            self.open_run(self.engine.run_id)

    def open_play(self, path: Path, title: str | None = None) -> None:
        """A new run of a play file, with the --model and --role the app was started with. The file is read,
        checked and cast in the worker that opens the run (pydantic and the engine load there), so the stage
        is on screen at once; `title` is what the status line says meanwhile."""
        gateway, store, model, roles = self.gateway, self.store, self.model, dict(self.roles)

        def opener() -> Any:
            from studio.engine import Engine
            from studio.engine.forms import load_play, resolve_cast

            cast = resolve_cast(load_play(path), path, model=model, roles=roles)
            check_models(cast)
            engine = Engine.create(store, cast, {"model": model, "roles": roles, "seed": cast.play.seed},
                                   gateway=gateway)
            self._fresh.add(engine.run_id)
            self._leave_on_bad_input = False
            return engine

        self._show_run(opener, opening=f"Opening {title or path}…")

    def _open_cast(self, cast: Any, options: dict[str, Any]) -> None:
        gateway = self.gateway
        store = self.store

        def opener() -> Any:
            from studio.engine import Engine

            check_models(cast)
            engine = Engine.create(store, cast, options, gateway=gateway)
            self._fresh.add(engine.run_id)
            return engine

        self._show_run(opener)

    def open_run(self, run_id: int, roles: dict[str, str] | None = None) -> None:
        gateway = self.gateway
        store = self.store

        def opener() -> Any:
            from studio.engine import Engine

            return Engine(store, run_id, gateway=gateway)

        def after(engine: EngineView) -> list[str]:
            return apply_roles(engine, roles or {})

        self._show_run(opener, after)

    def _show_run(self, opener: Any, after: Any = None, opening: str = "Opening…") -> None:
        from studio.tui.screens.main import MainScreen

        screen = MainScreen(opener, after, opening=opening)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def open_failed(self, error: BaseException) -> None:
        from studio.model import InputError

        if self._leave_on_bad_input and isinstance(error, InputError):
            self.bad_input = error
            self.exit(return_code=2)
            return
        message = error.message if isinstance(error, InputError) else str(error)
        self.notify(message, title="Cannot open the run", severity="error", timeout=12)
        self.engine = None
        self.show_picker()

    # -- app-wide controls -----------------------------------------------------------------

    def action_help(self) -> None:
        from studio.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def show_critiques(self, engine: EngineView) -> None:
        import importlib

        try:
            module = importlib.import_module(CRITIQUE_VIEW)
        except ImportError:
            module = None
        if module is not None and hasattr(module, "CritiqueScreen"):
            self.push_screen(module.CritiqueScreen(engine))
            return
        from studio.tui.screens.dialogs import CritiquesScreen

        self.push_screen(CritiquesScreen(engine.store.critiques(engine.run_id)))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Always plain text: messages carry model output, paths and provider errors, and any of them may
        hold square brackets that markup would swallow or choke on. A message taller than the screen has
        room for is shortened to what fits, ending in `…`, rather than cut at the screen's edge."""
        width, height = self.size
        message = fit_toast(message, width, height, titled=bool(title))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """A dialog opens over the notes of what was done before it: they go, so its help line and buttons
        show (at 80x24 the toasts sit right where a dialog's help line is); an error stays until read."""
        from textual.screen import ModalScreen

        if isinstance(screen, ModalScreen):
            self.clear_passing_notes()
        return super().push_screen(screen, *args, **kwargs)

    def clear_passing_notes(self) -> None:
        """Every notification but the errors, when something new asks for the playwright's eyes. Textual has
        no public call that removes some notifications and keeps others (studio/tui/textual_parts.py)."""
        if not textual_parts.has(textual_parts.NOTES):
            return  # Textual's own behaviour: each note leaves after its timeout
        passing = [n for n in self._notifications if n.severity != "error"]
        for note in passing:
            self._unnotify(note, refresh=False)
        if passing:
            self._refresh_notifications()

    # -- what differs between a terminal and a browser tab ----------------------------------------

    @property
    def delivers_files(self) -> bool:
        return self.is_web

    def export_folder(self) -> str | None:
        """Where an export is written before it is delivered: a private folder of this tab's in a browser
        tab (the file leaves it as it is sent), None in a terminal (the exporter's own default)."""
        if not self.is_web:
            return None
        if self._scratch is None:
            import tempfile

            self._scratch = tempfile.TemporaryDirectory(prefix="studio-tab-")
        return self._scratch.name + os.sep

    def deliver(self, path: Path) -> None:
        """A finished export reaches the playwright: in a browser tab as a download, in a terminal where it is."""
        if not self.is_web:
            self.notify(f"Exported to {path}", title="Export")
            return
        import mimetypes

        handle = path.open("rb")
        path.unlink(missing_ok=True)  # the open handle keeps it readable; nothing stays behind on the server
        mime, _ = mimetypes.guess_type(path.name)
        self.deliver_binary(handle, save_filename=path.name, mime_type=mime or "application/octet-stream")
        self.notify(f"Exported {path.name}: your browser downloads it.", title="Export")

    def edit_text(self, text: str, done: Callable[[str], None], suffix: str = ".txt") -> None:
        """ctrl+e in a text box: in a terminal the playwright's $EDITOR, in a browser tab the studio's own
        editor (an editor started on the serving machine would take its terminal, and outlive the tab).
        `done` hears the edited text; nothing, if the edit was left or failed."""
        if self.is_web:
            from studio.tui.screens.editor import EditorScreen

            if isinstance(self.screen, EditorScreen):
                self.notify("This is the studio's editor: ctrl+s keeps the text, Esc leaves it as it was.")
                return
            self.push_screen(EditorScreen(text), lambda edited: None if edited is None else done(edited))
            return
        from studio.tui.widgets.longtext import edit_in_editor

        async def external() -> None:
            edited = await edit_in_editor(self, text, suffix)
            if edited is not None:
                done(edited)

        self.run_worker(external(), group="editor", exit_on_error=False)

    async def action_quit(self) -> None:
        """Quit at once: committed events are already on disk; a line being written is dropped. An editor
        holding changes not saved asks first, as its Esc does."""
        from studio.tui.screens.modal import DiscardScreen, KeepsTyping

        if not any(isinstance(s, KeepsTyping) and s.unsaved() for s in self.screen_stack):
            self.exit()
        elif not isinstance(self.screen, DiscardScreen):
            self.push_screen(DiscardScreen("Quitting throws away what you typed in the editor and did not save."),
                             lambda discard: self.exit() if discard else None)

    def action_select_all_box(self) -> None:
        """ctrl+a in any text box, a one-line box too: the whole text, so what is typed next replaces it.
        Done behind the keys already on their way to the box, so none of them lands after the selection."""
        from textual.widgets import Input

        box = self.focused
        if isinstance(box, Input):
            box.call_later(box.select_all)
        elif box is not None and hasattr(box, "select_all"):
            box.call_later(box.select_all)


if TYPE_CHECKING:

    def _offers_what_screens_ask(app: StudioApp) -> StudioView:
        """Never called: the type check holds the app to the interface its screens are written against."""
        return app


TOAST_WIDTH = 60
"""A toast's width as the stylesheet sets it (studio.tcss), at most 70% of the screen's."""


def fit_toast(message: str, width: int, height: int, titled: bool = False) -> str:
    """The message cut to the lines a toast has room for on a `width` x `height` screen, ending in `…`."""
    import textwrap

    if not width or not height:
        return message
    inner = min(TOAST_WIDTH, width * 7 // 10) - 3  # the padding and the coloured edge
    rows = max(2, height - 6 - (1 if titled else 0))  # the toast's own padding and margins, the footer
    lines = [part for para in message.splitlines() for part in (textwrap.wrap(para, max(inner, 10)) or [""])]
    if len(lines) <= rows:
        return message
    kept = " ".join(lines[:rows])
    return kept[: max(0, len(kept) - 2)].rstrip() + " …"


def check_models(cast: Any) -> None:
    """Every model a role will call must be routable; the first that is not stops the opening."""
    from studio.llm import check_cast_models

    check_cast_models(cast, cast.play_path)


def apply_roles(engine: EngineView, roles: dict[str, str]) -> list[str]:
    """`--role WORD=human` takes a role over in a resumed run; any other value hands it back."""
    from studio.model import InputError

    said = []
    for word, choice in roles.items():
        matches = engine.cast.matching(word)
        if not matches:
            raise InputError("--role", word, "this run has no such role or character", "see 'studio show RUN'")
        for role in matches:
            if choice == "human" and role.key not in engine.humans():
                engine.take_over(role.key)
                said.append(f"You play {role.name} ({role.key}).")
            elif choice != "human" and role.key in engine.humans():
                engine.release(role.key)
                said.append(f"{role.name} ({role.key}) goes back to the model.")
    return said
