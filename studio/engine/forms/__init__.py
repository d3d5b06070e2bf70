"""Forms of play the engine can run; a play names one (`[play] form = "..."`), the Drama Machine by default."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import FILLS, RULE_FORMS, RULES, Form, Reply, Seat, fold_facts, rule
from studio.engine.forms.drama import DramaMachine
from studio.engine.forms.ensemble import Ensemble
from studio.engine.forms.interview import Interview
from studio.engine.forms.social import SocialGame

if TYPE_CHECKING:
    from studio.model.play import Play, ResolvedCast

FORMS: dict[str, type[Form]] = {"drama_machine": DramaMachine, "ensemble": Ensemble, "social_game": SocialGame,
                               "interview": Interview}


def register(name: str, form: type[Form]) -> None:
    FORMS[name] = form


def form_for(cast: ResolvedCast) -> Form:
    name = cast.play.form or "drama_machine"
    return FORMS[name]()


# The iterated Prisoner's Dilemma: the lab's `pd` trials are runs of it (studio/lab/pd_kind.py).
from studio.engine.forms.dilemma import Dilemma  # noqa: E402

FORMS["dilemma"] = Dilemma


# -- a play, checked by its form -------------------------------------------------------------------


def check_play(play: Play, path: str | os.PathLike[str]) -> None:
    """What only the forms know of a play file: the form it names, the rules its seats name, and the cast
    that form needs. Raises studio.model.InputError naming the file, the field and the fix."""
    from studio.model.errors import InputError
    from studio.model.loading import members

    where = str(path)
    if play.form not in FORMS:
        raise InputError(where, "form", f"unknown form {play.form!r}", f"use one of {', '.join(sorted(FORMS))}")
    fitting = sorted(name for name in RULES if RULE_FORMS.get(name, play.form) == play.form)
    for _, _, member, field in members(play):
        if member.rule is not None and member.rule not in fitting:
            known = "unknown rule" if member.rule not in RULES else f"rule of the {RULE_FORMS[member.rule]} form,"
            raise InputError(where, f"{field}.rule", f"{known} {member.rule!r}, not one a {play.form} play can use",
                             f"use one of {', '.join(fitting)}")
    for policy, seat in (("moderator", play.cast.moderator), ("director", play.cast.director)):
        if play.next == policy and seat is None:
            raise InputError(where, "next", f"is {policy!r}, but the play has no {policy} to choose who speaks",
                             f'add [cast.{policy}] character = "...", or use next = "round_robin"')
    FORMS[play.form].check_cast(play, where)


def load_play(path: str | os.PathLike[str]) -> Play:
    """A play file read and checked: its fields by the model, its cast by its form."""
    from studio.model.loading import read_play

    play = read_play(path)
    check_play(play, path)
    return play


def resolve_cast(play: Play, play_path: str | os.PathLike[str], **overrides: Any) -> ResolvedCast:
    """The cast with every setting decided (studio.model.loading.resolve_roles, which takes the command
    line's `model`, `roles`, `superego` and `strategies`), then checked by the play's form."""
    from studio.llm.gateway import model_window
    from studio.model.loading import resolve_roles

    check_play(play, play_path)  # a play built in code, not read from its file, is held to the same rules
    overrides.setdefault("window", model_window)  # a budget nobody set is the model's own window
    cast = resolve_roles(play, play_path, **overrides)
    for role in cast.roles:
        origin = role.sheet.card
        if role.is_character and origin is not None and origin.lorebook is not None \
                and not _linked(origin.card or {}, role.sheet.lorebooks):
            role.lore.insert(0, origin.lorebook)  # the card's own book first, then the sheet's and the play's
    FORMS[play.form].check_resolved(cast)
    return cast


def _linked(card: dict[str, Any], refs: list[str]) -> bool:
    """Whether the sheet names the World Info file its card links to (extensions.world): SillyTavern runs
    the linked world in place of the book embedded in the card, which is its copy."""
    from studio.model.starter import slug

    data = card.get("data") if isinstance(card.get("data"), dict) else card
    extensions = data.get("extensions") if isinstance(data, dict) else None
    world = extensions.get("world") if isinstance(extensions, dict) else None
    return isinstance(world, str) and bool(world.strip()) and slug(world) in refs

__all__ = ["FILLS", "FORMS", "RULES", "Form", "Reply", "Seat", "check_play", "fold_facts", "form_for", "load_play",
           "register", "resolve_cast", "rule"]
