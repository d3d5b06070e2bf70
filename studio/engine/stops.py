"""Why a step stops short of a committed line: a human's line or a pick is awaited (here, or in the
window that holds the role), the run is over, or a model gave up. Raised by a turn
(studio/engine/turn.py) and caught by whoever drives the engine."""

from __future__ import annotations

from studio.engine.forms.base import Step
from studio.model.play import ResolvedRole
from studio.store.events import Event


class NeedsHuman(Exception):
    """The next step belongs to a role a human is playing: call step(text=...) with their line."""

    def __init__(self, step: Step, role: ResolvedRole):
        self.step = step
        self.role = role
        super().__init__(f"{role.name} ({role.key}) is played by a human: waiting for their line")


class HeldElsewhere(Exception):
    """The next step belongs to a role another window holds: its line comes from there, so this one waits
    for it (or leaves the run where it is) rather than ask its own playwright."""

    def __init__(self, step: Step, role: ResolvedRole, holder: str):
        from studio.store.leases import window_name

        self.step, self.role, self.holder = step, role, holder
        self.window = window_name(holder)
        super().__init__(f"{role.name} ({role.key}) is played by {self.window}: their line comes from there")


class NeedsPick(Exception):
    """The turn policy leaves the choice of the next speaker to the playwright: call pick(name)."""

    def __init__(self, step: Step, choices: list[str], suggestion: str | None):
        self.step, self.choices, self.suggestion = step, choices, suggestion
        super().__init__("who speaks next? pick one of: " + ", ".join(choices))


class RunFinished(Exception):
    pass


class EngineError(Exception):
    """A model gave up; the error is already in the log (`event`; None for a draft, which logs nothing)
    and the run can go on from where it was."""

    def __init__(self, message: str, event: Event | None):
        self.event = event
        super().__init__(message)
