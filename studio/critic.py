"""The Critic, and the two casts of the experiment it judges: a play with and without the superego
(the experiment itself is a kind of the lab, `studio.lab.compare`).

After the Drama Machine (Magee et al., 2024, sections 3.1 and 5.1): a model in the role of a
theatre critic reads a run's script (the stage and the protagonist's autobiographical epilogue,
never the backstage, as in the paper) and scores the protagonist's development from 0 to 10 on four
criteria, with a short interpretation of each.

A critic's reply is data, so it is validated as data. Small models wrap JSON in prose, fences or
the wrong key spelling, so the reader is lenient about the wrapping (the first {...} that parses,
keys in any case or spelling variant, "7/10" for 7) and strict about the content (all four criteria,
whole-number scores from 0 to 10, an interpretation for each). An invalid reply is shown its error
and asked again; if the second reply is invalid too, the critique is stored and reported as
invalid, with both replies, and never given scores it did not earn.

Nothing here draws a screen: the CLI and the app render what these functions return.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio import structured
from studio.export.script import Direction, Epilogue, Heading, Script, Speech, build_script
from studio.model.play import DEFAULT_MODEL
from studio.store import Store

DEFAULT_CRITIC_MODEL = DEFAULT_MODEL
ATTEMPTS = structured.ATTEMPTS

# The paper's four criteria (section 3.1), keyed as the critic's JSON keys them.
CRITERIA: dict[str, tuple[str, str]] = {
    "behavioural_change": (
        "Behavioural Change",
        "how much {ego}'s behaviour towards {others} changes over the script, for better or worse, "
        "judged from {ego}'s own words",
    ),
    "introspection": (
        "Introspection",
        "how far {ego} reflects on themselves while the play goes on and in the closing notes",
    ),
    "narrative_divergence": (
        "Narrative Divergence",
        "how far {ego}'s change departs from the tidy, predictable arc such a character would follow "
        "if left alone",
    ),
    "successful_adaptation": (
        "Successful Adaptation",
        "whether the change helped {ego} adapt to the changing circumstances",
    ),
}

# The shape asked for. Its placeholders are not valid JSON and not valid interpretations, so a small
# model that copies the example back verbatim is told so and asked again, not scored.
_SHAPE = (
    '{"behavioural_change": {"score": <0-10>, "interpretation": "<one or two sentences>"}, '
    '"introspection": {"score": <0-10>, "interpretation": "<one or two sentences>"}, '
    '"narrative_divergence": {"score": <0-10>, "interpretation": "<one or two sentences>"}, '
    '"successful_adaptation": {"score": <0-10>, "interpretation": "<one or two sentences>"}, '
    '"summary": "<a short overall interpretation>"}'
)

_KEY_ALIASES = {"behavioral_change": "behavioural_change", "narrative_deviation": "narrative_divergence"}
_SCORE_KEYS = ("score", "rating", "value", "points")
_TEXT_KEYS = ("interpretation", "comment", "explanation", "reason", "reasoning", "justification", "notes")


class CriticError(Exception):
    """A critique that cannot even be asked for (nothing on stage yet): the message says why."""


# -- the reply as data -----------------------------------------------------------------------------


class Score(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    score: StrictInt = Field(ge=0, le=10)
    interpretation: str = Field(min_length=1)

    @field_validator("interpretation")
    @classmethod
    def _words(cls, value: str) -> str:
        return structured.words(value)


class Verdict(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    behavioural_change: Score
    introspection: Score
    narrative_divergence: Score
    successful_adaptation: Score
    summary: str = ""

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, value: Any) -> str:
        text = value if isinstance(value, str) else ("" if value is None else json.dumps(value))
        return "" if structured.PLACEHOLDER.fullmatch(text.strip()) else text

    def criteria(self) -> dict[str, dict[str, Any]]:
        return {key: getattr(self, key).model_dump() for key in CRITERIA}


def _key(name: Any) -> str:
    return structured.key(name, _KEY_ALIASES)


def _score(value: Any) -> Any:
    return structured.whole_number(value, out_of=10)


def _normalise(obj: dict[str, Any]) -> dict[str, Any]:
    data = {_key(k): v for k, v in obj.items()}
    if not any(k in data for k in CRITERIA):
        for value in data.values():  # {"scores": {...}} or {"criteria": {...}}
            if isinstance(value, dict) and any(_key(k) in CRITERIA for k in value):
                inner = {_key(k): v for k, v in value.items()}
                inner.setdefault("summary", data.get("summary", ""))
                data = inner
                break
    out: dict[str, Any] = {"summary": data.get("summary", "")}
    for key in CRITERIA:
        if key not in data:
            continue
        value = data[key]
        if isinstance(value, dict):
            fields = {_key(k): v for k, v in value.items()}
            score = next((fields[k] for k in _SCORE_KEYS if k in fields), None)
            text = next((fields[k] for k in _TEXT_KEYS if k in fields), None)
            out[key] = {"score": _score(score), "interpretation": text}
        else:
            out[key] = {"score": _score(value), "interpretation": None}
    return out


def parse_verdict(text: str) -> tuple[Verdict | None, str | None]:
    """The critic's reply read as a verdict, or None and one line saying what is wrong with it."""
    return structured.read(text, Verdict, _normalise)


# -- what the critic reads --------------------------------------------------------------------------


def critic_budget(model: str) -> int:
    """Characters of script the critic is shown: the embedded model holds 4096 tokens in all."""
    return 7000 if model.startswith("local/") else 60000


def transcript(script: Script, budget: int = 60000) -> str:
    """The script as plain text for the critic; over budget, the middle gives way, never the epilogue."""
    cast = "; ".join(
        f"{c.name}" + (" (the main character)" if c.kind == "ego" else "") + (f": {c.description}" if c.description else "")
        for c in script.on_stage_cast
    )
    head = [f"{script.title.upper()}, a play", f"Cast: {cast}"]
    if script.premise:
        head.append("Premise: " + " ".join(script.premise.split()))
    body: list[str] = []
    closing: list[str] = []
    for block in script.blocks:
        if isinstance(block, Heading):
            body.append("")
            body.append(block.title + (f": {block.brief}" if block.brief else ""))
        elif isinstance(block, Direction):
            body.append(f"[{' '.join(block.text.split())}]")
        elif isinstance(block, Speech):
            words = " ".join(
                f"({text})" if kind == "business" else " ".join(text.split()) for kind, text in block.parts
            )
            body.append(f"{block.character.upper()}: {words or '(silence)'}")
        elif isinstance(block, Epilogue):
            closing = ["", f"EPILOGUE: {block.character}'s autobiographical notes", " ".join(block.text.split())]
    if not closing:
        closing = ["", "(The run ended before the epilogue.)"]
    fixed = len("\n".join(head + closing))
    if fixed + len("\n".join(body)) <= budget:
        return "\n".join(head + body + closing).strip()
    room = max(budget - fixed - 80, 0)
    first: list[str] = []
    last: list[str] = []
    used = 0
    i, j = 0, len(body) - 1
    # Alternate from both ends, so the critic sees how the protagonist began and how they ended.
    while i <= j:
        for side in (0, 1):
            if i > j:
                break
            line = body[i] if side == 0 else body[j]
            if used + len(line) + 1 > room:
                i = j + 1
                break
            used += len(line) + 1
            if side == 0:
                first.append(line)
                i += 1
            else:
                last.insert(0, line)
                j -= 1
    omitted = len(body) - len(first) - len(last)
    middle = [f"[... {omitted} lines omitted ...]"] if omitted else []
    text = "\n".join(head + first + middle + last + closing).strip()
    return text if len(text) <= budget else text[: budget - 1] + "…"


def messages_for(script: Script, budget: int) -> list[dict[str, str]]:
    ego = script.protagonist
    others = ", ".join(c.name for c in script.on_stage_cast if c.kind != "ego") or "the others"
    criteria = "\n".join(
        f"- {label}: {meaning.format(ego=ego, others=others)}." for label, meaning in CRITERIA.values()
    )
    user = (
        f"In your role as a theatrical critic, score and evaluate the development of the main character, "
        f"{ego}, in the following script according to these criteria, each from 0 to 10:\n{criteria}\n"
        "Give a short interpretation of each score, and a short overall interpretation.\n\n"
        f"THE SCRIPT\n\n{transcript(script, budget)}\n\nEND OF THE SCRIPT\n\n"
        "Reply with one JSON object and nothing else, in exactly this shape, scores as whole numbers "
        f"from 0 to 10:\n{_SHAPE}"
    )
    return [
        {"role": "system", "content": "You are a theatre critic. You answer in JSON when asked to."},
        {"role": "user", "content": user},
    ]


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
        }

    def as_dict(self) -> dict[str, Any]:
        return {"run": self.run_id, "id": self.id, "head": self.head, "model": self.model,
                "created": self.created, "label": self.label, **self.body()}

    @classmethod
    def from_stored(cls, run_id: int, row: dict[str, Any]) -> "Critique":
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
    from studio.llm import CallContext, CallSettings
    from studio.llm.sampling import EMBEDDED_MIN_P, EMBEDDED_REPEAT_PENALTY, EMBEDDED_TOP_P, is_embedded

    model = model or DEFAULT_CRITIC_MODEL
    script = build_script(store, run_id, head=head)
    if not any(isinstance(b, Speech) for b in script.blocks):
        raise CriticError(f"run {run_id} has no lines on stage yet; play some turns first")
    if gateway is None:
        from studio.llm import Gateway

        gateway = Gateway()
    settings = CallSettings(model=model, temperature=0.2, max_tokens=600, timeout=600.0,
                            schema=structured.reply_schema(Verdict, max_text=300))
    if is_embedded(model):
        # The tiny model loops without a repeat penalty, and its held strings must close within the budget.
        settings = dataclasses.replace(settings, schema=structured.reply_schema(Verdict, max_text=160),
                                       repeat_penalty=EMBEDDED_REPEAT_PENALTY, top_p=EMBEDDED_TOP_P,
                                       min_p=EMBEDDED_MIN_P)
    ctx = CallContext(role="critic", task="critic", character="Critic")
    messages = messages_for(script, critic_budget(model))
    critique = Critique(
        run_id=run_id,
        head=script.head,
        model=model,
        title=script.title,
        character=script.protagonist,
        superego=script.with_superego,
        finished=script.finished,
        valid=False,
    )
    for attempt in range(1, max(1, attempts) + 1):
        completion = await gateway.complete(settings, messages, ctx, on_token=on_token)
        reply = completion.text
        critique.attempts = attempt
        critique.replies.append(reply)
        verdict, error = parse_verdict(reply)
        if verdict is not None:
            critique.valid = True
            critique.criteria = verdict.criteria()
            critique.summary = verdict.summary
            critique.error = None
            break
        critique.error = error
        messages = messages + [
            {"role": "assistant", "content": reply},
            {
                "role": "user",
                "content": f"That reply could not be used: {error}. Reply again with only the JSON object, "
                f"in exactly this shape, scores as whole numbers from 0 to 10:\n{_SHAPE}",
            },
        ]
    if not keep:  # a critique the run keeps as its own event (the critic loop), not in the critiques table
        return critique
    critique.id = store.add_critique(run_id, critique.head, model, critique.body())
    stored = store.critiques(run_id)
    critique.created = next((row["created"] for row in stored if row["id"] == critique.id), None)
    return critique


# -- the experiment -----------------------------------------------------------------------------------


def experiment_casts(
    play_path: str | Path, *, turns: int | None = None, seed: int | None = None, model: str | None = None
):
    """The two casts of the experiment, identical but for the superego (in an ensemble, every inner voice:
    the Critic judges the protagonist, the first character, whose own voice must be there to compare).
    Bad input raises InputError."""
    from studio.model import InputError, load_play, resolve_cast
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
    without = resolve_cast(play, play_path, model=model, superego=False)
    with_ = resolve_cast(play, play_path, model=model)
    if play.cast.superego is not None:
        with_.superego.enabled = True
    return without, with_
