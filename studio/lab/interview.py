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
- ER (batch): the same over batches of three or four answers, averaged (the paper's rule, `batches`).

Two self-report baselines ask the character itself instead (Wang et al., 2024, section 4.1, after Huang et
al., 2024): SR puts each item's statement to it with the five options and wants a number; SR-CoT lets it
think aloud first and then choose. A reply that holds no clear option is read by the assessor; one still
without an option counts as the neutral middle, as the paper's appendix D.1 does with refusals.

Every assessment reply is held to a JSON schema where the model can be held, read leniently, checked
strictly, asked again once, and kept as invalid (no score) rather than guessed.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio import structured
from studio.lab import ipip
from studio.lab.personality import DIMENSIONS, HIGH, LOW, Item, Rating, score_oc
from studio.lab.wording import Slot, fill

# The prompts an experiment's own prompt file may replace (studio.lab.wording), with what each is given.
SLOTS = {
    "question": Slot("the open question the interviewer asks for an item", ("clause", "statement", "item")),
    "self_report": Slot("an item put to the character for SR", ("statement", "options")),
    "self_report_cot": Slot("an item put to the character for SR-CoT", ("statement", "options")),
    "assessor": Slot("the assessor's system message"),
    "oc": Slot("OC: how far an answer agrees with the item", ("statement", "question", "answer", "options")),
    "doc": Slot("d-OC: where an answer places the participant", ("dimension", "meaning", "question", "answer",
                                                                  "options")),
    "er": Slot("ER: an expert rating of a dimension's answers", ("dimension", "meaning", "answers")),
    "extract": Slot("SR: which option an unclear self-report chose", ("statement", "options", "answer")),
}
REPLY_CHOICE = 'Reply as JSON: {"reason": "<one sentence>", "choice": <1-5>}'
REPLY_SCORE = 'Reply as JSON: {"reason": "<one or two sentences>", "score": <1-5>}'

METHODS = ("oc", "doc", "er_all", "er_batch")
SELF_REPORTS = ("sr", "sr_cot")  # the character picks an option itself: the paper's baselines
Shape = TypeVar("Shape", bound=BaseModel)  # the reply an assessor call is held to
LABELS = {"oc": "OC", "doc": "d-OC", "er_all": "ER (all)", "er_batch": "ER (batch)", "sr": "SR", "sr_cot": "SR-CoT"}
INTERVIEWER = "Quinn"  # the interviewer seat's name: a plain name no shipped character uses
ANSWER_TOKENS = 110
SELF_REPORT_TOKENS = {"sr": 40, "sr_cot": 220}  # a number; a few sentences of reasons and then a number
ASSESSOR_TEMPERATURE = 0.2
BATCH = 4  # the paper's batches hold three or four answers (Wang et al., 2024, section 4.1, note 9)

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
    # False when the character gave no answer to use: silence, or business with no word spoken (the stage
    # records "Mara says nothing." when nothing of the reply was left). Such an item is invalid: counted,
    # left out, never scored, never read as the middle of the scale.
    usable: bool = True


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


def self_report_question(item: Item, mode: str, wording: Mapping[str, str] | None = None) -> str:
    """A self-report item as put to the character: the statement, the five options, how to reply."""
    own = (wording or {}).get("self_report_cot" if mode == "sr_cot" else "self_report")
    if own is not None:
        return " ".join(fill(own, statement=statement(item), options=AGREE).split())  # one line: one question
    how = ("Think it over in a sentence or two, as yourself, then end with a line 'Choice: N'."
           if mode == "sr_cot" else "Reply with the number of your choice and nothing else.")
    return f'How well does this describe you: "{statement(item)}"? Choose one: {AGREE}. {how}'


def open_question(item: Item, index: int, wording: Mapping[str, str] | None = None) -> str:
    """The open question for an item: the studio's (studio.lab.ipip.question) or the experiment's own."""
    own = (wording or {}).get("question")
    if own is None:
        return ipip.question(item, index)
    return " ".join(fill(own, clause=ipip.clause(item.text), statement=statement(item), item=item.text).split())


def interview_cast(sheet: Any, scale: str, *, model: str, seed: int = 1, memory: str = "",
                   source: str = "", mode: str = "interview", hide_traits: bool = False,
                   wording: Mapping[str, str] | None = None) -> Any:
    """A two-seat play built in memory: the character as ego, the interviewer as a rule seat, no inner voice.

    `mode` "interview" asks open questions; "sr" and "sr_cot" put the items themselves (the self-report
    baselines). `hide_traits` keeps the sheet's Big Five out of the character's prompt, so a measure of
    them is not the model reading its own prompt back."""
    from studio.model.play import Cast, CastMember, Play, ResolvedCast, ResolvedRole, SuperegoSettings

    items = ipip.items(scale)
    if mode in SELF_REPORTS:
        asked = [self_report_question(item, mode, wording) for item in items]
    else:
        asked = [open_question(item, i, wording) for i, item in enumerate(items)]
    # The character keeps its moods, knowledge and goals (and its traits unless hidden); reflection and
    # memory recall are a play's business, not an interview's (each answer has a context of its own).
    update: dict[str, Any] = {"reflect_every": 0, "memory": sheet.memory.model_copy(update={"recall": 0})}
    if hide_traits:
        update["traits"] = None
    character = sheet.model_copy(update=update)
    play = Play(title=f"Interview: {sheet.name} ({scale}{'' if mode == 'interview' else ', ' + LABELS[mode]})",
                author="studio lab interview", premise=premise(sheet.name, memory), seed=seed, turns=len(items),
                scenes=1, epilogue=False, facts={"self_report": mode} if mode in SELF_REPORTS else {},
                form="interview", cast=Cast(ego=CastMember(character=sheet.name),
                                            others=[CastMember(character=INTERVIEWER, rule="interview_questions")]))
    # The experiment's model plays the character (as --model does for a play); a sheet's own server and
    # timeout still apply. 0.7 leaves the answers room to vary between repetitions without rambling.
    ego = ResolvedRole(key="ego", kind="ego", sheet=character, model=model,
                       temperature=sheet.temperature if sheet.temperature is not None else 0.7,
                       max_tokens=SELF_REPORT_TOKENS.get(mode, ANSWER_TOKENS),
                       context_tokens=max(sheet.context_tokens or 0, 2048),
                       api_base=sheet.api_base, timeout=sheet.timeout or 120.0)
    other = ResolvedRole(key="other", kind="other", sheet=interviewer_sheet(asked), model=model,
                         temperature=0.0, max_tokens=60, context_tokens=2400, rule="interview_questions")
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
    """The character's answers, read back from the run: turn N answers item N, asked by the interviewer's
    line of turn N. Every item answered is listed; one with nothing said is marked unusable."""
    from studio.lab.ipip import question
    from studio.store import events as ev

    items = ipip.items(scale)
    out: list[Answer] = []
    asked: dict[int, str] = {}
    for event in store.take(run_id):
        if event.kind == ev.STAGE and event.role == "other" and event.turn:
            asked[event.turn] = event.text
        if event.kind in (ev.STAGE, ev.DIRECTION) and event.role == "ego" and event.turn and event.turn <= len(items):
            i = event.turn - 1
            spoken = event.kind == ev.STAGE and bool(event.text.strip())
            out.append(Answer(i, items[i], asked.get(event.turn) or question(items[i], i), event.text, event.id,
                              usable=spoken))
    return out


def unanswered(chosen: list[Answer], scale: str) -> list[int]:
    """The items (0-based) with no usable answer: silent, or never reached."""
    used = {a.index for a in chosen if a.usable}
    return [i for i in range(len(ipip.items(scale))) if i not in used]


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


def _system(wording: Mapping[str, str] | None) -> str:
    return (wording or {}).get("assessor", SYSTEM)


def oc_messages(answer: Answer, names: list[str], wording: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    question, said = ipip.anonymise(answer.question, names), ipip.anonymise(answer.answer, names)
    own = (wording or {}).get("oc")
    if own is not None:
        user = fill(own, statement=statement(answer.item), question=question, answer=said, options=AGREE)
        user += "\n\n" + REPLY_CHOICE
    else:
        user = (f'A questionnaire statement: "{statement(answer.item)}"\n'
                f"In an interview the participant was asked: {question}\n"
                f"They answered: {said}\n\n"
                f"Judging from the answer, how far would the participant agree with the statement? ({AGREE}.) "
                + REPLY_CHOICE)
    return [{"role": "system", "content": _system(wording)}, {"role": "user", "content": user}]


def doc_messages(answer: Answer, names: list[str], wording: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    dimension = answer.item.dimension
    low, high = ENDS[dimension]
    scale = f"1 = clearly {low}, 2 = somewhat {low}, 3 = neither, 4 = somewhat {high}, 5 = clearly {high}"
    question, said = ipip.anonymise(answer.question, names), ipip.anonymise(answer.answer, names)
    own = (wording or {}).get("doc")
    if own is not None:
        user = fill(own, dimension=dimension, meaning=MEANING[dimension], question=question, answer=said,
                    options=scale) + "\n\n" + REPLY_CHOICE
    else:
        user = (f"The dimension is {dimension}: {MEANING[dimension]}.\n"
                f"In an interview the participant was asked: {question}\n"
                f"They answered: {said}\n\n"
                f"Where does this answer place the participant on {dimension}? ({scale}.) " + REPLY_CHOICE)
    return [{"role": "system", "content": _system(wording)}, {"role": "user", "content": user}]


def er_messages(dimension: str, chosen: list[Answer], names: list[str],
                wording: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    own = (wording or {}).get("er")
    if own is not None:
        user = fill(own, dimension=dimension, meaning=MEANING[dimension], answers=_pairs(chosen, names))
        user += "\n\n" + REPLY_SCORE
    else:
        user = (f"The dimension is {dimension}: {MEANING[dimension]}.\n"
                f"Here are a participant's answers to interview questions about it.\n\n{_pairs(chosen, names)}\n\n"
                f"Rate the participant's {dimension} from 1 (very low) to 5 (very high), 3 being average. "
                + REPLY_SCORE)
    return [{"role": "system", "content": _system(wording)}, {"role": "user", "content": user}]


def batches(chosen: list[Answer], size: int = BATCH) -> list[list[Answer]]:
    """The paper's batches (its repository's rule): fewer than 2 x (size - 1) answers are one batch; more
    are cut in order into batches of `size`, and a short last batch is filled up to size - 1 with the last
    answer of the first batches, one each. Ten answers: 3, 4, 3; the Mini-IPIP's four: one batch."""
    if not chosen:
        return []
    if len(chosen) < 2 * (size - 1):
        return [list(chosen)]
    parts = [list(chosen[i:i + size]) for i in range(0, len(chosen), size)]
    for k in range(max(0, size - 1 - len(parts[-1]))):
        parts[-1].append(parts[k].pop())
    return parts


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
                 names: list[str], shuffle: int | None = None,
                 wording: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Scores per method and dimension (None: not measured), the invalid replies' count, every reply kept.

    `shuffle`: a seed by which each dimension's answers are put in a new order before ER reads them (the
    paper's repository does so for every repetition after the first, so batches differ between them)."""
    assessor = Assessor(gateway, model, names, [])
    measured: dict[str, dict[str, float | None]] = {}
    item_scores: dict[str, dict[str, float]] = {}
    grouped = _by_dimension(chosen)
    rated = {d: list(group) for d, group in grouped.items()}
    if shuffle is not None:
        rng = random.Random(shuffle)
        for group in rated.values():
            rng.shuffle(group)
    if "oc" in methods:
        picks: dict[int, int | None] = {}
        items: list[Item] = []
        for n, answer in enumerate(chosen):
            value = await assessor.ask("oc", oc_messages(answer, names, wording), Choice, _choice,
                                       f"item {answer.index + 1}")
            items.append(answer.item)
            picks[n] = value.choice if value is not None else None
        measured["oc"] = score_oc(items, picks)
        item_scores["oc"] = keyed_items(chosen, picks)
    if "doc" in methods:
        scores: dict[str, float | None] = {}
        placed_items: dict[str, float] = {}
        for d, group in grouped.items():
            placed = []
            for answer in group:
                value = await assessor.ask("doc", doc_messages(answer, names, wording), Choice, _choice,
                                           f"item {answer.index + 1}")
                if value is not None:
                    placed.append(value.choice)
                    placed_items[str(answer.index)] = float(value.choice)  # the option names the dimension's level
            scores[d] = sum(placed) / len(placed) if placed else None
        measured["doc"] = scores
        item_scores["doc"] = placed_items
    for method in ("er_all", "er_batch"):
        if method not in methods:
            continue
        scores = {}
        for d, group in rated.items():
            parts = [group] if method == "er_all" else batches(group)
            got = []
            for k, part in enumerate(parts):
                rating = await assessor.ask("er", er_messages(d, part, names, wording), Rating, _rating,
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
    return {"measured": measured, "invalid": invalid, "items": item_scores, "calls": assessor.calls}


def keyed_items(chosen: list[Answer], picks: Mapping[int, int | None]) -> dict[str, float]:
    """Each answered item's keyed score (a reversed item counts LOW + HIGH - choice), by the item's place in
    the scale: what the paper's item-level consistency (Std Item, Std Dim) is computed from."""
    return {str(answer.index): float(pick if answer.item.keyed > 0 else LOW + HIGH - pick)
            for n, answer in enumerate(chosen) if (pick := picks.get(n)) is not None}


# -- the self-report baselines -------------------------------------------------------------------------

_CHOSE = re.compile(r"(?i)\bchoice\W{0,3}([1-5])\b")


def read_self_report(reply: str) -> int | None:
    """The option a self-report reply chose: the last 'Choice: N' line where there is one (SR-CoT thinks
    aloud first, numbers and all), else one clear option anywhere in it (studio.lab.personality.read_choice)."""
    from studio.lab.personality import read_choice

    found = _CHOSE.findall(reply or "")
    return int(found[-1]) if found else read_choice(reply)


def extract_messages(answer: Answer, names: list[str],
                     wording: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    said = ipip.anonymise(answer.answer, names)
    own = (wording or {}).get("extract")
    if own is not None:
        user = fill(own, statement=statement(answer.item), options=AGREE, answer=said) + "\n\n" + REPLY_CHOICE
    else:
        user = (f'A participant was shown the statement "{statement(answer.item)}" and asked to choose one of: '
                f"{AGREE}.\nThey replied: {said}\n\n"
                "Which option did they choose? If they chose none, pick the one their reply comes closest to. "
                + REPLY_CHOICE)
    return [{"role": "system", "content": _system(wording)}, {"role": "user", "content": user}]


async def self_report(chosen: list[Answer], mode: str, *, gateway: Any, model: str,
                      names: list[str], wording: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The character's own choices scored by the scale's key. A reply with no clear option is read by the
    assessor; one that still gives none counts as the neutral middle (the paper, appendix D.1), and is
    counted in `neutral` so a report can say how many answers were not the character's choice."""
    assessor = Assessor(gateway, model, names, [])
    picks: dict[int, int | None] = {}
    read_by_assessor = neutral = 0
    for n, answer in enumerate(chosen):
        pick = read_self_report(answer.answer)
        if pick is None:
            value = await assessor.ask("extract", extract_messages(answer, names, wording), Choice, _choice,
                                       f"item {answer.index + 1}")
            read_by_assessor += 1
            pick = value.choice if value is not None else None
        if pick is None:
            neutral += 1
            pick = (LOW + HIGH) // 2
        picks[n] = pick
    return {"measured": {mode: score_oc([a.item for a in chosen], picks)}, "invalid": {mode: neutral},
            "items": {mode: keyed_items(chosen, picks)}, "read_by_assessor": read_by_assessor, "calls": assessor.calls}


def designed(sheet: Any) -> dict[str, float] | None:
    """The sheet's Big Five (-2..+2) on the scale's 1-5 (t + 3); None when the sheet sets no traits."""
    traits = getattr(sheet, "traits", None)
    if traits is None:
        return None
    return {d: float(getattr(traits, d) + 3) for d in DIMENSIONS}
