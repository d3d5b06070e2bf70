"""The Critic's reading of a play, and the review step a form takes between scenes when it talks back.

After the Drama Machine (Magee et al., 2024, sections 3.1 and 5.1): a model in the role of a theatre
critic reads a script (the stage and the protagonist's autobiographical epilogue, never the backstage,
as in the paper) and scores the protagonist's development from 0 to 10 on four criteria, with a short
interpretation of each.

A critic's reply is data, so it is validated as data. Small models wrap JSON in prose, fences or the
wrong key spelling, so the reader is lenient about the wrapping (the first {...} that parses, keys in
any case or spelling variant, "7/10" for 7) and strict about the content (all four criteria, whole-number
scores from 0 to 10, an interpretation for each). An invalid reply is shown its error and asked again;
if the second reply is invalid too, the answer is invalid, with both replies, and never given scores it
did not earn.

The prompt and the reader live here, beside the forms, because a form's review step asks the Critic in
the middle of a run; studio.critic builds the user-facing critique and the experiment on the same parts.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio import structured
from studio.engine.forms.base import Reply, Step
from studio.engine.script import Direction, Epilogue, Heading, Script, Speech, read_script
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import ResolvedCast

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


# -- the reply as data -----------------------------------------------------------------------------


def _summary_text(value: Any) -> str:
    """A verdict's summary as text; the example's placeholder, or nothing, is no summary."""
    text = value if isinstance(value, str) else ("" if value is None else json.dumps(value))
    return "" if structured.PLACEHOLDER.fullmatch(text.strip()) else text


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

    _summary = field_validator("summary", mode="before")(classmethod(lambda cls, value: _summary_text(value)))

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


# -- both scripts together, blind to which is which --------------------------------------------------------

# The criteria for a reading of two scripts of the same play (after section 3.1). The Critic is never told
# which script has the inner voice, nor that one of them does: the scripts are "A" and "B", in an order drawn
# for each reading, so what the Critic expects of a script, or of a position, cannot pass for the inner
# voice's effect. Narrative divergence is therefore judged against the arc the other script shows, both ways.
PAIRED_CRITERIA: dict[str, str] = {
    "behavioural_change": "a measure, for better or worse, of how {ego}'s behaviour towards {others} changes "
                          "over the script, judged from what {ego} says",
    "introspection": "a measure, never negative, of the reflection on themselves that {ego} shows while "
                     "performing, closing notes included",
    "narrative_divergence": "how far {ego}'s behavioural change departs from the predictable arc such a "
                            "character would follow, the other script being one telling of the same play",
    "successful_adaptation": "whether the change helped {ego} adapt to their changing circumstances",
}
LETTERS = ("A", "B")  # the scripts as the Critic sees them, in the order shown

_ONE = ", ".join(f'"{k}": {{"score": <0-10>, "interpretation": "<one or two sentences>"}}' for k in CRITERIA)
PAIR_SHAPE = ('{"script_a": {' + _ONE + '}, "script_b": {' + _ONE + '}, '
              '"summary": "<a short interpretation comparing the two>"}')
_SIDES = {"script_a": ("script_a", "scripta", "a", "first", "script_1", "script1", "1"),
          "script_b": ("script_b", "scriptb", "b", "second", "script_2", "script2", "2")}


class PairVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    script_a: Verdict
    script_b: Verdict
    summary: str = ""

    _summary = field_validator("summary", mode="before")(classmethod(lambda cls, value: _summary_text(value)))


def _normalise_pair(obj: dict[str, Any]) -> dict[str, Any]:
    data = {_key(k): v for k, v in obj.items()}
    out: dict[str, Any] = {"summary": data.get("summary", "")}
    for side, names in _SIDES.items():
        value = next((data[n] for n in names if n in data), None)
        if isinstance(value, dict):
            out[side] = _normalise(value)
    return out


def parse_pair(text: str) -> tuple[PairVerdict | None, str | None]:
    """A reading of two scripts as two verdicts and a summary, or None and what is wrong with it."""
    return structured.read(text, PairVerdict, _normalise_pair)


def pair_messages(first: Script, second: Script, budget: int, *, own: str | None = None,
                  system: str | None = None) -> list[dict[str, str]]:
    """Both scripts in one message, as Script A and Script B in the order given, neither named as the one
    with or without the inner voice (the caller draws the order). Each script gets half the budget. `own`:
    a researcher's template for the request (checked by the lab: {ego}, {others}, {criteria}, {script_a},
    {script_b}; {script_1} and {script_2} are the same two); the reply's JSON shape is added after it either
    way, and `system` replaces the critic's system message."""
    ego = second.protagonist
    others = ", ".join(c.name for c in second.on_stage_cast if c.kind != "ego") or "the others"
    criteria = "\n".join(f"- {CRITERIA[k][0]}: {meaning.format(ego=ego, others=others)}."
                         for k, meaning in PAIRED_CRITERIA.items())
    half = max(budget // 2, 1000)
    a, b = transcript(first, half), transcript(second, half)
    shape = ("Reply with one JSON object and nothing else, in exactly this shape, scores as whole numbers "
             f"from 0 to 10:\n{PAIR_SHAPE}")
    if own is not None:
        user = own.format_map({"ego": ego, "others": others, "criteria": criteria, "script_a": a,
                               "script_b": b, "script_1": a, "script_2": b}) + "\n\n" + shape
    else:
        user = (
            f"In your role as a theatrical critic, score and evaluate the development of the main character, {ego}, "
            f"in the following two scripts of the same play, each criterion from 0 to 10 for each script:\n{criteria}\n"
            "Give a short interpretation of each score, and a short interpretation comparing the two.\n\n"
            f"SCRIPT A\n\n{a}\n\nEND OF SCRIPT A\n\n"
            f"SCRIPT B\n\n{b}\n\nEND OF SCRIPT B\n\n" + shape
        )
    return [{"role": "system", "content": system or "You are a theatre critic. You answer in JSON when asked to."},
            {"role": "user", "content": user}]


@dataclass
class PairAnswer:
    """What the Critic answered about two scripts: each side's criteria (as shown: A first, B second) when
    valid, every reply either way."""

    valid: bool = False
    first: dict[str, dict[str, Any]] | None = None
    second: dict[str, dict[str, Any]] | None = None
    summary: str = ""
    error: str | None = None
    attempts: int = 0
    replies: list[str] = field(default_factory=list)


async def ask_pair(gateway: Any, model: str, messages: list[dict[str, str]], *,
                   attempts: int = ATTEMPTS) -> PairAnswer:
    """Ask the critic about two scripts, once more with what was wrong if the reply is not two verdicts."""
    from studio.llm import CallContext

    settings = dataclasses.replace(settings_for_critic(model), max_tokens=1100,
                                   schema=structured.reply_schema(PairVerdict, max_text=300))
    ctx = CallContext(role="critic", task="critic_pair", character="Critic")
    answer = PairAnswer()
    for attempt in range(1, max(1, attempts) + 1):
        reply = (await gateway.complete(settings, messages, ctx)).text
        answer.attempts = attempt
        answer.replies.append(reply)
        verdict, error = parse_pair(reply)
        if verdict is not None:
            answer.valid, answer.error = True, None
            answer.first, answer.second = verdict.script_a.criteria(), verdict.script_b.criteria()
            answer.summary = verdict.summary
            break
        answer.error = error
        messages = messages + [
            {"role": "assistant", "content": reply},
            {"role": "user", "content": f"That reply could not be used: {error}. Reply again with only the JSON "
                                        f"object, in exactly this shape, scores as whole numbers from 0 to 10:\n{PAIR_SHAPE}"},
        ]
    return answer


# -- asking ---------------------------------------------------------------------------------------------


@dataclass
class Answer:
    """What the Critic answered: a verdict's criteria and summary when valid, every reply either way."""

    valid: bool = False
    criteria: dict[str, dict[str, Any]] | None = None
    summary: str = ""
    error: str | None = None
    attempts: int = 0
    replies: list[str] = field(default_factory=list)


def settings_for_critic(model: str) -> Any:
    """The critic's call: cool, long enough for four interpretations, held to the verdict's shape."""
    from studio.llm import CallSettings
    from studio.llm.sampling import EMBEDDED_MIN_P, EMBEDDED_REPEAT_PENALTY, EMBEDDED_TOP_P, is_embedded

    settings = CallSettings(model=model, temperature=0.2, max_tokens=600, timeout=600.0,
                            schema=structured.reply_schema(Verdict, max_text=300))
    if is_embedded(model):
        # The tiny model loops without a repeat penalty, and its held strings must close within the budget.
        settings = dataclasses.replace(settings, schema=structured.reply_schema(Verdict, max_text=160),
                                       repeat_penalty=EMBEDDED_REPEAT_PENALTY, top_p=EMBEDDED_TOP_P,
                                       min_p=EMBEDDED_MIN_P)
    return settings


async def ask(gateway: Any, model: str, messages: list[dict[str, str]], *, attempts: int = ATTEMPTS,
              on_token: Callable[[str], None] | None = None) -> Answer:
    """Ask the critic, and once more with what was wrong if the reply is not a verdict. The gateway's
    ModelError propagates: no reply is not an invalid reply."""
    from studio.llm import CallContext

    settings = settings_for_critic(model)
    ctx = CallContext(role="critic", task="critic", character="Critic")
    answer = Answer()
    for attempt in range(1, max(1, attempts) + 1):
        completion = await gateway.complete(settings, messages, ctx, on_token=on_token)
        reply = completion.text
        answer.attempts = attempt
        answer.replies.append(reply)
        verdict, error = parse_verdict(reply)
        if verdict is not None:
            answer.valid, answer.criteria, answer.summary, answer.error = True, verdict.criteria(), verdict.summary, None
            break
        answer.error = error
        messages = messages + [
            {"role": "assistant", "content": reply},
            {
                "role": "user",
                "content": f"That reply could not be used: {error}. Reply again with only the JSON object, "
                f"in exactly this shape, scores as whole numbers from 0 to 10:\n{_SHAPE}",
            },
        ]
    return answer


# -- the review step ---------------------------------------------------------------------------------------


def review_due(cast: ResolvedCast, scene: int, reviewed: int) -> bool:
    """With the Critic talking back (the play's critic_loop), a scene that has ended and is not yet
    reviewed in this take is reviewed before the next one opens."""
    return bool(cast.play.critic_loop) and scene >= 1 and reviewed < scene


def review_step(scene: int, turn: int) -> Step:
    """The form's own step between scenes: no seat of the cast takes it, the Critic does."""
    return Step(ev.REVIEW, "review", None, scene, turn)


def critic_model(cast: ResolvedCast) -> str:
    """The Critic in the loop speaks with the Director's model (the one who will read it), else the first seat's."""
    seat = cast.role("director") if cast.has("director") else cast.roles[0]
    return seat.model


async def review(cast: ResolvedCast, path: list[Event], gateway: Any) -> Reply:
    """The play so far scored as its scene ends, committed backstage, where the Director's next opening
    reads it (studio.engine.forms.drama.prompts: review_for)."""
    model = critic_model(cast)
    script = read_script(cast, path)
    if not any(isinstance(b, Speech) for b in script.blocks):
        answer = Answer(error="there are no lines on stage yet")
    else:
        answer = await ask(gateway, model, messages_for(script, critic_budget(model)))
    scores = {k: v["score"] for k, v in (answer.criteria or {}).items()} if answer.valid else {}
    if answer.valid and answer.criteria:
        text = "; ".join(f"{k.replace('_', ' ')} {v['score']}/10: {v['interpretation'].rstrip('.')}"
                         for k, v in answer.criteria.items())
        text += f". {answer.summary}" if answer.summary else ""
    else:
        text = f"(the critic's reply could not be used: {answer.error})"
    return Reply(text, data={"valid": answer.valid, "scores": scores, "replies": answer.replies},
                 event={"origin": "model", "character": "Critic", "model": model})
