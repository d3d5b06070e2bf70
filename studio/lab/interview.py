"""The personality interview (InCharacter, 2024): ask a character a scale's items as open questions, then
have an assessor, who is never told the character's name, turn the answers into Big-Five scores.

The interview is a run in the store (form `interview`, studio/engine/forms/interview.py): an interviewer
seat asks each item as an open-ended question of our own wording (studio/lab/ipip.py) and the character
answers in character, each answer in a context of its own, every question and answer an event. The
assessment reads the answers back from the run and asks an assessor model, by four methods:

- OC: for each item, the assessor says how far the answer agrees with the item's statement (1-5);
  reversed items are turned round and each dimension's items averaged (the scale's own scoring).
- d-OC: each answer placed on its item's dimension itself (1 = clearly introverted ... 5 = clearly
  extraverted), so the options speak of the trait and no item is reversed; each dimension averaged. One
  answer a call: asked to place four answers at once, the embedded model numbered them 1, 2, 3, 4.
- ER (all): per dimension, an expert rating of all that dimension's answers at once: a reason and a 1-5 score.
- ER (batch): the same over batches of at most four answers, averaged.

Every assessment reply is held to a JSON schema where the model can be held, read leniently, checked
strictly, asked again once, and kept as invalid (no score) rather than guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio import structured
from studio.lab import ipip
from studio.lab.personality import DIMENSIONS, HIGH, LOW, Item, Rating, score_oc

METHODS = ("oc", "doc", "er_all", "er_batch")
Shape = TypeVar("Shape", bound=BaseModel)  # the reply an assessor call is held to
LABELS = {"oc": "OC", "doc": "d-OC", "er_all": "ER (all)", "er_batch": "ER (batch)"}
INTERVIEWER = "Quinn"  # the interviewer seat's name: a plain name no shipped character uses
ANSWER_TOKENS = 110
ASSESSOR_TEMPERATURE = 0.2
BATCH = 4  # the paper's batches hold three or four answers

# What each dimension means, for the assessor (our own words), and its two ends, for d-OC's options.
MEANING = {
    "openness": "curiosity, imagination and an appetite for ideas, art and new experience; "
                "a low scorer prefers the familiar, the practical and the concrete",
    "conscientiousness": "order, diligence, planning and keeping one's duties; "
                         "a low scorer is casual, spontaneous or careless with tasks and things",
    "extraversion": "sociability, talkativeness and energy drawn from company; "
                    "a low scorer is reserved, quiet and content alone",
    "agreeableness": "warmth, kindness, trust and concern for others; "
                     "a low scorer is blunt, cold, suspicious or indifferent to others",
    "neuroticism": "how easily one is worried, upset, irritated or low in mood; "
                   "a low scorer is calm, steady and hard to ruffle",
}
ENDS = {"openness": ("conventional", "open"), "conscientiousness": ("careless", "conscientious"),
        "extraversion": ("introverted", "extraverted"), "agreeableness": ("disagreeable", "agreeable"),
        "neuroticism": ("calm", "anxious")}
AGREE = "1 = strongly disagree, 2 = disagree, 3 = neither, 4 = agree, 5 = strongly agree"


@dataclass(frozen=True)
class Answer:
    index: int  # the item's place in the scale, 0-based
    item: Item
    question: str
    answer: str
    event: int | None = None  # the answer's event in the run


# -- the interview: a run in the store -----------------------------------------------------------------

def premise(name: str, memory: str = "") -> str:
    if memory.strip():
        return (f"{name} is being interviewed about themselves after what has happened so far. "
                f"What {name} has lived through, as {name} remembers it:\n{memory.strip()}")
    return f"{name} has agreed to sit down with an interviewer and talk about themselves: habits, people, feelings."


def interviewer_sheet(asked: list[str]) -> Any:
    from studio.model.play import CharacterSheet

    numbered = "\n".join(f"{i + 1}. {q}" for i, q in enumerate(asked))
    return CharacterSheet(name=INTERVIEWER, description="An interviewer asking open questions about a person's life.",
                          prompt=f"Ask these questions, one a turn:\n{numbered}")


def interview_cast(sheet: Any, scale: str, *, model: str, seed: int = 1, memory: str = "",
                   source: str = "") -> Any:
    """A two-seat play built in memory: the character as ego, the interviewer as a rule seat, no inner voice."""
    from studio.model.play import Cast, CastMember, Play, ResolvedCast, ResolvedRole, SuperegoSettings

    items = ipip.items(scale)
    asked = [ipip.question(item, i) for i, item in enumerate(items)]
    # The character keeps its traits, moods, knowledge and goals; reflection and memory recall are a
    # play's business, not an interview's (each answer has a context of its own).
    character = sheet.model_copy(update={"reflect_every": 0,
                                         "memory": sheet.memory.model_copy(update={"recall": 0})})
    play = Play(title=f"Interview: {sheet.name} ({scale})", author="studio lab interview",
                premise=premise(sheet.name, memory), seed=seed, turns=len(items), scenes=1, epilogue=False,
                form="interview", cast=Cast(ego=CastMember(character=sheet.name),
                                            others=[CastMember(character=INTERVIEWER, rule="interview_questions")]))
    # The experiment's model plays the character (as --model does for a play); a sheet's own server and
    # timeout still apply. 0.7 leaves the answers room to vary between repetitions without rambling.
    ego = ResolvedRole(key="ego", kind="ego", sheet=character, model=model,
                       temperature=sheet.temperature if sheet.temperature is not None else 0.7,
                       max_tokens=ANSWER_TOKENS, context_tokens=max(sheet.context_tokens or 0, 2048),
                       api_base=sheet.api_base, timeout=sheet.timeout or 120.0)
    other = ResolvedRole(key="other", kind="other", sheet=interviewer_sheet(asked), model=model,
                         temperature=0.0, max_tokens=60, context_tokens=1400, rule="interview_questions")
    settings = SuperegoSettings(enabled=False)
    return ResolvedCast(play=play, play_path=source or f"characters/{sheet.name.lower()}.toml",
                        roles=[ego, other], superego=settings)


async def interview(store: Any, gateway: Any, cast: Any | None = None, *, run_id: int | None = None,
                    options: dict[str, Any] | None = None, started: Any = None) -> int:
    """Play the interview to its end (or continue run `run_id` from its last event); returns the run."""
    from studio.engine import Engine

    if run_id is not None:
        engine = Engine(store, run_id, gateway)
    elif cast is None:
        raise ValueError("an interview needs a cast to begin or a run to continue")
    else:
        engine = Engine.create(store, cast, options or {}, gateway=gateway)
        if started is not None:
            started(engine.run_id)
    await engine.play_to_end()
    return engine.run_id


def answers(store: Any, run_id: int, scale: str) -> list[Answer]:
    """The character's answers, read back from the run: turn N answers item N."""
    from studio.lab.ipip import question
    from studio.store import events as ev

    items = ipip.items(scale)
    out: list[Answer] = []
    for event in store.take(run_id):
        if event.kind in (ev.STAGE, ev.DIRECTION) and event.role == "ego" and event.turn and event.turn <= len(items):
            i = event.turn - 1
            out.append(Answer(i, items[i], question(items[i], i), event.text, event.id))
    return out


# -- the assessor ------------------------------------------------------------------------------------

class Choice(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    reason: str
    choice: StrictInt = Field(ge=LOW, le=HIGH)

    @field_validator("reason")
    @classmethod
    def _words(cls, value: str) -> str:
        return structured.words(value)


def _choice(obj: dict[str, Any]) -> dict[str, Any]:
    data = {structured.key(k): v for k, v in obj.items()}
    value = data.get("choice", data.get("score", data.get("option", data.get("result"))))
    reason = data.get("reason", data.get("analysis", data.get("explanation")))
    return {"choice": structured.whole_number(value, HIGH), "reason": reason}


def _rating(obj: dict[str, Any]) -> dict[str, Any]:
    data = {structured.key(k): v for k, v in obj.items()}
    value = data.get("score", data.get("result", data.get("rating")))
    reason = data.get("reason", data.get("analysis", data.get("explanation")))
    return {"score": structured.whole_number(value, HIGH), "reason": reason}


def statement(item: Item) -> str:
    """The item as the participant would say it: "Am the life of the party." -> "I am the life of the party."."""
    text = item.text.strip()
    return "I " + text[:1].lower() + text[1:]


def _pairs(chosen: list[Answer], names: list[str]) -> str:
    return "\n\n".join(f"Answer {n + 1}. Question: {ipip.anonymise(a.question, names)}\n"
                       f"The participant: {ipip.anonymise(a.answer, names)}" for n, a in enumerate(chosen))


SYSTEM = ("You are a psychologist who assesses personality from interviews. You never learn who the "
          "participant is; you judge only from what they said. Reply with JSON only.")


def oc_messages(answer: Answer, names: list[str]) -> list[dict[str, str]]:
    user = (f'A questionnaire statement: "{statement(answer.item)}"\n'
            f"In an interview the participant was asked: {ipip.anonymise(answer.question, names)}\n"
            f"They answered: {ipip.anonymise(answer.answer, names)}\n\n"
            f"Judging from the answer, how far would the participant agree with the statement? ({AGREE}.) "
            'Reply as JSON: {"reason": "<one sentence>", "choice": <1-5>}')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def doc_messages(answer: Answer, names: list[str]) -> list[dict[str, str]]:
    dimension = answer.item.dimension
    low, high = ENDS[dimension]
    scale = f"1 = clearly {low}, 2 = somewhat {low}, 3 = neither, 4 = somewhat {high}, 5 = clearly {high}"
    user = (f"The dimension is {dimension}: {MEANING[dimension]}.\n"
            f"In an interview the participant was asked: {ipip.anonymise(answer.question, names)}\n"
            f"They answered: {ipip.anonymise(answer.answer, names)}\n\n"
            f"Where does this answer place the participant on {dimension}? ({scale}.) "
            'Reply as JSON: {"reason": "<one sentence>", "choice": <1-5>}')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def er_messages(dimension: str, chosen: list[Answer], names: list[str]) -> list[dict[str, str]]:
    user = (f"The dimension is {dimension}: {MEANING[dimension]}.\n"
            f"Here are a participant's answers to interview questions about it.\n\n{_pairs(chosen, names)}\n\n"
            f"Rate the participant's {dimension} from 1 (very low) to 5 (very high), 3 being average. "
            'Reply as JSON: {"reason": "<one or two sentences>", "score": <1-5>}')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def batches(chosen: list[Answer], size: int = BATCH) -> list[list[Answer]]:
    """Near-equal batches of at most `size` answers, at least two when there are two answers or more."""
    if len(chosen) < 2:
        return [chosen] if chosen else []
    count = max(2, math.ceil(len(chosen) / size))
    return [chosen[i::count] for i in range(count)]


@dataclass
class Assessor:
    gateway: Any
    model: str
    names: list[str]
    calls: list[dict[str, Any]]

    async def ask(self, task: str, messages: list[dict[str, str]], shape: type[Shape], normalise: Any,
                  label: str) -> Shape | None:
        """One structured reply: held to its schema, read leniently, asked again once, else None."""
        from studio.llm import CallContext
        from studio.llm.gateway import CallSettings

        settings = CallSettings(model=self.model, temperature=ASSESSOR_TEMPERATURE, max_tokens=220,
                                schema=structured.reply_schema(shape, max_text=200))
        ctx = CallContext(role="other", task=task, character="assessor")
        replies: list[str] = []
        problem = None
        for _ in range(structured.ATTEMPTS):
            asked = messages if problem is None else messages + [
                {"role": "assistant", "content": replies[-1]},
                {"role": "user", "content": structured.ask_again(problem, "as asked above")}]
            completion = await self.gateway.complete(settings, asked, ctx)
            replies.append(completion.text)
            value, problem = structured.read(completion.text, shape, normalise)
            if value is not None:
                self.calls.append({"task": task, "about": label, "replies": replies, "valid": True})
                return value
        self.calls.append({"task": task, "about": label, "replies": replies, "valid": False, "error": problem})
        return None


def _by_dimension(chosen: list[Answer]) -> dict[str, list[Answer]]:
    return {d: [a for a in chosen if a.item.dimension == d] for d in DIMENSIONS}


async def assess(chosen: list[Answer], methods: list[str], *, gateway: Any, model: str,
                 names: list[str]) -> dict[str, Any]:
    """Scores per method and dimension (None: not measured), the invalid replies' count, every reply kept."""
    assessor = Assessor(gateway, model, names, [])
    measured: dict[str, dict[str, float | None]] = {}
    grouped = _by_dimension(chosen)
    if "oc" in methods:
        picks: dict[int, int | None] = {}
        items: list[Item] = []
        for n, answer in enumerate(chosen):
            value = await assessor.ask("oc", oc_messages(answer, names), Choice, _choice, f"item {answer.index + 1}")
            items.append(answer.item)
            picks[n] = value.choice if value is not None else None
        measured["oc"] = score_oc(items, picks)
    if "doc" in methods:
        scores: dict[str, float | None] = {}
        for d, group in grouped.items():
            placed = []
            for answer in group:
                value = await assessor.ask("doc", doc_messages(answer, names), Choice, _choice,
                                           f"item {answer.index + 1}")
                if value is not None:
                    placed.append(value.choice)
            scores[d] = sum(placed) / len(placed) if placed else None
        measured["doc"] = scores
    for method in ("er_all", "er_batch"):
        if method not in methods:
            continue
        scores = {}
        for d, group in grouped.items():
            parts = [group] if method == "er_all" else batches(group)
            got = []
            for k, part in enumerate(parts):
                rating = await assessor.ask("er", er_messages(d, part, names), Rating, _rating,
                                            d if method == "er_all" else f"{d}, batch {k + 1}")
                if rating is not None:
                    got.append(float(rating.score))
            scores[d] = sum(got) / len(got) if got else None
        measured[method] = scores
    invalid = {m: 0 for m in methods}
    task_of = {"oc": "oc", "doc": "doc", "er_all": "er", "er_batch": "er"}
    for call in assessor.calls:
        if not call["valid"]:
            which = next((m for m in methods if task_of[m] == call["task"]
                          and (call["task"] != "er" or ("batch" in call["about"]) == (m == "er_batch"))), None)
            if which:
                invalid[which] += 1
    return {"measured": measured, "invalid": invalid, "calls": assessor.calls}


def designed(sheet: Any) -> dict[str, float] | None:
    """The sheet's Big Five (-2..+2) on the scale's 1-5 (t + 3); None when the sheet sets no traits."""
    traits = getattr(sheet, "traits", None)
    if traits is None:
        return None
    return {d: float(getattr(traits, d) + 3) for d in DIMENSIONS}
