"""The Critic, and the two casts of the experiment it judges: a play with and without the superego
(the experiment itself is a kind of the lab, `studio.lab.compare`).

After the Drama Machine (Magee et al., 2024, sections 3.1 and 5.1): a model in the role of a
theatre critic reads a run's script (the stage and the protagonist's autobiographical epilogue,
never the backstage, as in the paper) and scores the protagonist's development from 0 to 10 on four
criteria, with a short interpretation of each.

The prompt and the reader of a verdict (lenient about the wrapping, strict about the content, asked
again once) are studio.engine.forms.review, which a form's review step also uses between scenes; here
are the critique a playwright asks for, stored with the run, and the two casts the experiment compares.

Nothing here draws a screen: the CLI and the app render what these functions return.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

from studio import structured
from studio.engine.forms.review import (  # noqa: F401 - the Critic's prompt and reader, shared with the review step
    CRITERIA, Score, Verdict, ask, ask_pair, critic_budget, messages_for, pair_messages, parse_verdict, transcript,
)
from studio.engine.reading import build_script
from studio.engine.script import Speech
from studio.model.play import DEFAULT_MODEL
from studio.store import Store

DEFAULT_CRITIC_MODEL = DEFAULT_MODEL
ATTEMPTS = structured.ATTEMPTS


class CriticError(Exception):
    """A critique that cannot even be asked for (nothing on stage yet): the message says why."""


# -- a critique ---------------------------------------------------------------------------------------


@dataclass
class Critique:
    run_id: int
    head: int | None
    model: str
    title: str
    character: str
    superego: bool
    finished: bool
    valid: bool
    criteria: dict[str, dict[str, Any]] | None = None
    summary: str = ""
    error: str | None = None
    attempts: int = 0
    replies: list[str] = field(default_factory=list)
    id: int | None = None
    created: float | None = None
    paired_with: int | None = None  # read beside this run, the other of the pair, as the paper's critic did
    shown: int | None = None  # in a reading of two: 1 when this run was Script A (shown first), 2 when Script B

    @property
    def label(self) -> str:
        """As in the paper's table 2: the protagonist, with (+SE) or without (-SE) the superego."""
        return f"{self.character} ({'+' if self.superego else '-'}SE)"

    def score(self, key: str) -> int | None:
        return self.criteria[key]["score"] if self.valid and self.criteria else None

    def body(self) -> dict[str, Any]:
        """What is stored with the run (the store adds id, head, created and model)."""
        return {
            "valid": self.valid,
            "criteria": self.criteria,
            "summary": self.summary,
            "error": self.error,
            "attempts": self.attempts,
            "replies": self.replies,
            "title": self.title,
            "character": self.character,
            "superego": self.superego,
            "finished": self.finished,
            **({"paired_with": self.paired_with} if self.paired_with is not None else {}),
            **({"shown": self.shown} if self.shown is not None else {}),
        }

    def as_dict(self) -> dict[str, Any]:
        return {"run": self.run_id, "id": self.id, "head": self.head, "model": self.model,
                "created": self.created, "label": self.label, **self.body()}

    @classmethod
    def from_stored(cls, run_id: int, row: dict[str, Any]) -> Critique:
        return cls(
            run_id=run_id,
            head=row.get("head"),
            model=row.get("model") or "",
            title=row.get("title", ""),
            character=row.get("character", ""),
            superego=bool(row.get("superego")),
            finished=bool(row.get("finished", True)),
            valid=bool(row.get("valid")),
            criteria=row.get("criteria"),
            summary=row.get("summary", ""),
            error=row.get("error"),
            attempts=int(row.get("attempts", 0)),
            replies=list(row.get("replies", [])),
            id=row.get("id"),
            created=row.get("created"),
            paired_with=row.get("paired_with"),
            shown=row.get("shown"),
        )


def stored_critiques(store: Store, run_id: int) -> list[Critique]:
    return [Critique.from_stored(run_id, row) for row in store.critiques(run_id)]


async def critique_run(
    store: Store,
    run_id: int,
    *,
    model: str | None = None,
    head: int | None = None,
    gateway: Any = None,
    attempts: int = ATTEMPTS,
    on_token: Callable[[str], None] | None = None,
    keep: bool = True,
) -> Critique:
    """Ask the critic about one take of a run, store the critique with the run, and return it.

    Raises CriticError when there is nothing to judge, and the gateway's ModelError when the model
    cannot be reached (then nothing is stored: no reply is not an invalid reply).
    """
    model = model or DEFAULT_CRITIC_MODEL
    script = build_script(store, run_id, head=head)
    if not any(isinstance(b, Speech) for b in script.blocks):
        raise CriticError(f"run {run_id} has no lines on stage yet; play some turns first")
    if gateway is None:
        from studio.llm import Gateway

        gateway = Gateway()
    answer = await ask(gateway, model, messages_for(script, critic_budget(model)), attempts=attempts,
                       on_token=on_token)
    critique = Critique(
        run_id=run_id,
        head=script.head,
        model=model,
        title=script.title,
        character=script.protagonist,
        superego=script.with_superego,
        finished=script.finished,
        valid=answer.valid,
        criteria=answer.criteria,
        summary=answer.summary,
        error=answer.error,
        attempts=answer.attempts,
        replies=answer.replies,
    )
    if not keep:  # a critique the run keeps as its own event (the critic loop), not in the critiques table
        return critique
    critique.id = store.add_critique(run_id, critique.head, model, critique.body())
    stored = store.critiques(run_id)
    critique.created = next((row["created"] for row in stored if row["id"] == critique.id), None)
    return critique


def with_first(*key: Any) -> bool:
    """Whether the run with the inner voice is shown first in a reading of two: drawn by a generator seeded
    with `key` (an experiment's seed and repetition, or the two runs), so the same reading asked again is
    shown in the same order, and over many readings each order comes about as often."""
    return random.Random("critic order:" + ":".join(map(str, key))).random() < 0.5


async def critique_pair(store: Store, without_run: int, with_run: int, *, model: str | None = None,
                        gateway: Any = None, attempts: int = ATTEMPTS, wording: dict[str, str] | None = None,
                        first: str | None = None) -> tuple[Critique, Critique]:
    """The Critic reads two runs of one play together, as the paper's critic read its two scripts (Magee et
    al., 2024, section 5.1), and scores each; returns the critiques of (without_run, with_run).

    The reading is blind: the scripts are Script A and Script B, never named as with or without the inner
    voice, and `first` ("with" or "without") says which is shown first; left out, it is drawn from the two
    runs (`with_first`). Each run keeps its side of the reading as its critique, naming the other run and
    where it was shown (`shown`), so a report can tell a position's effect from the inner voice's.
    `wording`: a researcher's own request and system message (studio.lab.compare.SLOTS), checked by the lab."""
    model = model or DEFAULT_CRITIC_MODEL
    scripts = [build_script(store, run) for run in (without_run, with_run)]
    for run, script in zip((without_run, with_run), scripts):
        if not any(isinstance(b, Speech) for b in script.blocks):
            raise CriticError(f"run {run} has no lines on stage yet; play some turns first")
    if gateway is None:
        from studio.llm import Gateway

        gateway = Gateway()
    if first is None:
        first = "with" if with_first(without_run, with_run) else "without"
    order = (1, 0) if first == "with" else (0, 1)  # indexes into (without, with), as shown
    wording = wording or {}
    messages = pair_messages(scripts[order[0]], scripts[order[1]], critic_budget(model),
                             own=wording.get("critic_pair"), system=wording.get("critic_system"))
    answer = await ask_pair(gateway, model, messages, attempts=attempts)
    sides = {order[0]: (answer.first, 1), order[1]: (answer.second, 2)}
    runs = (without_run, with_run)
    out = []
    for i, (run, script) in enumerate(zip(runs, scripts)):
        criteria, shown = sides[i]
        critique = Critique(run_id=run, head=script.head, model=model, title=script.title,
                            character=script.protagonist, superego=script.with_superego, finished=script.finished,
                            valid=answer.valid, criteria=criteria, summary=answer.summary, error=answer.error,
                            attempts=answer.attempts, replies=answer.replies, paired_with=runs[1 - i], shown=shown)
        critique.id = store.add_critique(run, critique.head, model, critique.body())
        out.append(critique)
    return out[0], out[1]


# -- the experiment -----------------------------------------------------------------------------------


def experiment_casts(
    play_path: str | Path, *, turns: int | None = None, seed: int | None = None, model: str | None = None,
    roles: dict[str, str] | None = None,
):
    """The two casts of the experiment, identical but for the superego (in an ensemble, every inner voice:
    the Critic judges the protagonist, the first character, whose own voice must be there to compare).
    Bad input raises InputError."""
    from studio.model import InputError
    from studio.engine.forms import load_play, resolve_cast
    from studio.model.loading import with_overrides

    play = load_play(play_path)
    members = [("ego", play.cast.ego), ("superego", play.cast.superego), ("director", play.cast.director)] + [
        (f"others[{i}]", m) for i, m in enumerate(play.cast.others)
    ] + [(f"characters[{i}]", m) for i, m in enumerate(play.cast.characters)]
    if play.form == "ensemble":
        if not play.cast.characters or play.cast.characters[0].voice is None:
            raise InputError(str(play_path), "cast.characters[0].voice",
                             "the protagonist (the first character) has no inner voice to compare with",
                             "give the first character a voice = { character = ... }")
    elif play.cast.superego is None:
        raise InputError(
            str(play_path), "cast.superego", "this play has no superego to compare with", "add a [cast.superego] section"
        )
    for key, member in members:
        if member is not None and member.human:
            raise InputError(
                str(play_path), f"cast.{key}.human", "compare runs unattended, with a model in every role",
                "set human = false, or use 'studio run' to play it yourself",
            )
    play = with_overrides(play, turns=turns, seed=seed)
    without = resolve_cast(play, play_path, model=model, superego=False, roles=roles)
    with_ = resolve_cast(play, play_path, model=model, roles=roles)
    if play.cast.superego is not None:
        with_.superego.enabled = True
    return without, with_
