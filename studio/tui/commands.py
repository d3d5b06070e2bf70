"""The command palette's view of the controls: every binding by name, plus one command per role and
per strategy and per character's sheet, so the palette can do in one step what a dialog does in two."""

from __future__ import annotations

from functools import partial
from typing import Any
from collections.abc import Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

from studio.tui.controls import GLOBAL, MAIN


class ControlsProvider(Provider):
    def _commands(self) -> Iterator[tuple[str, Callable[[], Any], str]]:
        screen = self.screen
        on_run = hasattr(screen, "engine")
        controls = (MAIN + GLOBAL) if on_run else GLOBAL
        for control in controls:
            target = screen if control in MAIN else self.app
            yield (
                f"{control.label} ({control.keys})",
                partial(target.run_action, control.action),
                f"{control.help} [{control.id}]",
            )
        if not on_run:
            return
        from studio.tui.screens.main import MainScreen  # loaded already: a run is on screen

        if not isinstance(screen, MainScreen) or screen.engine is None:
            return
        engine = screen.engine
        from studio.tui.views import played_by

        for role in engine.cast.roles:
            human = role.key in engine.humans()
            who = played_by(engine, role.key) if human else ""
            verb = "Hand back" if human else "Take over"
            yield (
                f"{verb} {role.name} ({role.key})",
                partial(screen.cast_controls.toggle_role, role.key),
                "You write their lines from their next turn." if not human
                else f"{role.model} plays them again." if who == "you"
                else f"{who} plays them: only that window hands them back.",
            )
        for key in screen.cast_controls.sheet_files():
            role = engine.cast.role(key)
            yield (
                f"Edit {role.name}'s sheet ({key})",
                partial(screen.cast_controls.edit_character, key),
                "Prompt, model, traits, moods, knowledge and goals; saved to characters/.",
            )
        if engine.cast.has("superego") and engine.cast.superego.enabled:
            for name in ("rewrite_prompt", "rewrite_speech", "critique"):
                on = engine.state.strategy_on(name)
                yield (
                    f"Superego: switch {name.replace('_', ' ')} {'off' if on else 'on'}",
                    partial(screen.cast_controls.switch_strategy, name, not on),
                    "From the next step on.",
                )
        from studio.tui.ensemble_views import voice_switches

        for key, states in voice_switches(engine).items():  # an ensemble's inner voices, one by one
            for name, on in states.items():
                yield (
                    f"{engine.cast.role(key).name}: switch {name.replace('_', ' ')} {'off' if on else 'on'}",
                    partial(screen.ensemble.switch_voice, key, name, not on),
                    "This inner voice alone, from the next step on.",
                )

    async def discover(self) -> Hits:
        for name, runnable, help_text in self._commands():
            yield DiscoveryHit(name, runnable, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, runnable, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), runnable, help=help_text)
