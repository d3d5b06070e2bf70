"""Forms of play the engine can run; a play names one (`[play] form = "..."`), the Drama Machine by default."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.engine.forms.base import FILLS, RULES, Form, Reply, Seat, fold_facts, rule
from studio.engine.forms.drama import DramaMachine
from studio.engine.forms.ensemble import Ensemble
from studio.engine.forms.interview import Interview
from studio.engine.forms.social import SocialGame

if TYPE_CHECKING:
    from studio.model.play import ResolvedCast

FORMS: dict[str, type[Form]] = {"drama_machine": DramaMachine, "ensemble": Ensemble, "social_game": SocialGame,
                               "interview": Interview}


def register(name: str, form: type[Form]) -> None:
    FORMS[name] = form


def form_for(cast: "ResolvedCast") -> Form:
    name = getattr(cast.play, "form", "drama_machine") or "drama_machine"
    return FORMS[name]()


# The iterated Prisoner's Dilemma: the lab's `pd` trials are runs of it (studio/lab/pd_kind.py).
from studio.engine.forms.dilemma import Dilemma  # noqa: E402

FORMS["dilemma"] = Dilemma

__all__ = ["FILLS", "FORMS", "RULES", "Form", "Reply", "Seat", "fold_facts", "form_for", "register", "rule"]
