"""The turn pipeline, free of any UI: director, other, superego strategies, ego, epilogue."""

from studio.engine.engine import Engine, EngineError, HeldElsewhere, NeedsHuman, NeedsPick, Pending, RunFinished
from studio.engine.forms.drama.state import RunState
from studio.engine.forms.base import Step
from studio.engine.lines import is_direction

__all__ = ["Engine", "EngineError", "HeldElsewhere", "NeedsHuman", "NeedsPick", "Pending", "RunFinished", "RunState", "Step", "is_direction"]
