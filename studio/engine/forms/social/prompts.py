"""What a player of the social game is told at each moment, in plain data in and chat messages out.

Every prompt is built from what the player can know: the rules, their own persona, where they stand
and who stands there, their goals and impressions (when their architecture has those modules), and the
memories their lens recalled. Nothing here reads the store; the form hands these functions a player's
view. The wording is ours; the shape follows Thudium et al., 2024 (an action chosen from the game's verbs with
the memories retrieval brought back, least relevant first; a secret vote with a reason; goals at three
priority levels set each round with the last two rounds' goals and their audited scores; a reflection
that answers the paper's four questions with up to five insights; an auditor scoring the goals 1-5).

Replies that must be choices ask for one small JSON object, and say the plain-words form is fine too:
small models often manage "talk to Ben" where they fumble braces, and the rules read both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

Message = dict[str, str]
LEVELS = ("high", "medium", "low")  # a player's goals by priority, as asked for and read back


@dataclass
class PlayerView:
    """One player's knowledge at one moment, as the form assembles it."""

    name: str
    persona: str  # the sheet's prompt and the persona text from traits and archetype
    rules: str  # the game's rules in a paragraph (see `rules_text`)
    round: int
    place: str
    place_description: str = ""
    here: Sequence[str] = ()
    paths: Sequence[str] = ()
    memories: Sequence[str] = ()  # recalled by retrieval, least relevant first (the most relevant nearest the question)
    goals: Sequence[str] = ()  # high, medium, low priority; empty when the goals module is off
    impressions: dict[str, str] = field(default_factory=dict)  # empty when the module is off
    still_in: Sequence[str] = ()
    jury: Sequence[str] = ()
    holds_idol: bool = False
    holdings: Sequence[str] = ()
    lying: Sequence[str] = ()


def rules_text(players: int, actions_per_round: int, idol_hint: str = "") -> str:
    text = (
        f"You are one of {players} contestants living on an island in a game of alliances and votes. "
        f"Each round, everyone acts {actions_per_round} times. An action is one of: look around, go somewhere, "
        "get, drop or examine a thing, check your inventory, give a thing to someone, eat or drink, light "
        "something, catch fish, talk with someone in the same place, search for the idol, read a clue. "
        "At the end of each round every contestant still in the game votes in secret to send one other "
        "home; the one with the most votes leaves and joins the jury. When two remain, the jury chooses the "
        "winner. Conversations are heard by everyone standing in the same place, and by no one else."
    )
    if idol_hint:
        text += f" {idol_hint}"
    return text


def _system(view: PlayerView) -> str:
    parts = [view.persona.strip(), "", view.rules]
    if view.goals:
        levels = ("High priority", "Medium priority", "Low priority")
        parts += ["", "Your goals this round:", *[f"- {lvl}: {g}" for lvl, g in zip(levels, view.goals) if g]]
    if view.impressions:
        parts += ["", "What you make of the others:", *[f"- {who}: {what}" for who, what in view.impressions.items()]]
    if view.holds_idol:
        parts += ["", "You hold the hidden idol: it will save you from one vote. Nobody knows unless you say so."]
    return "\n".join(parts).strip()


def _situation(view: PlayerView) -> str:
    lines = [f"Round {view.round}. You are at {view.place}." + (f" {view.place_description}" if view.place_description else "")]
    lines.append("Here with you: " + (", ".join(view.here) if view.here else "nobody") + ".")
    if view.paths:
        lines.append("From here you can walk to: " + ", ".join(view.paths) + ".")
    lines.append("Still in the game: " + ", ".join(view.still_in) + ".")
    if view.jury:
        lines.append("On the jury: " + ", ".join(view.jury) + ".")
    if view.holdings:
        lines.append("You carry: " + ", ".join(view.holdings) + ".")
    if view.lying:
        lines.append("Lying here: " + ", ".join(view.lying) + ".")
    if view.memories:
        lines += ["What you remember, from the least to the most relevant now:", *[f"- {m}" for m in view.memories]]
    return "\n".join(lines)


def _call(view: PlayerView, ask: str, problem: str | None = None) -> list[Message]:
    """The player's system prompt and one question; a second chance says what was wrong with the first."""
    if problem:
        ask += f"\n(Your last answer could not be used: {problem}.)"
    return [{"role": "system", "content": _system(view)}, {"role": "user", "content": ask}]


def action(view: PlayerView, options: Sequence[str], problem: str | None = None) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nWhat do you do now? One action that serves your goals. Choose one of: {'; '.join(options)}.\n"
        'Reply with JSON like {"action": "talk", "target": "Name"}, {"action": "move", "target": "Place"}, '
        '{"action": "give", "target": "Name", "item": "thing"} or {"action": "search"}; or just say it, '
        'e.g. "talk to Name".'
    )
    return _call(view, ask, problem)


def conversation(view: PlayerView, partner: str, transcript: Sequence[tuple[str, str]], opening: bool) -> list[Message]:
    """A line of a one-on-one conversation; everyone at the place hears it."""
    others = [p for p in view.here if p != partner]
    overheard = f" {', '.join(others)} can hear you." if others else " Nobody else is near."
    ask = _situation(view) + f"\n\nYou are talking with {partner}.{overheard}"
    messages: list[Message] = [{"role": "system", "content": _system(view)}, {"role": "user", "content": ask}]
    for speaker, text in transcript:
        role = "assistant" if speaker == view.name else "user"
        content = text if role == "assistant" else f"{speaker}: {text}"
        if messages[-1]["role"] == role:
            messages[-1]["content"] += "\n" + content
        else:
            messages.append({"role": role, "content": content})
    cue = (f"You start. Say your first line to {partner}." if opening else f"Answer {partner}.")
    cue += (" One to three sentences of direct speech, without your name in front. Speak for your own game: "
            "you need not agree. If talking on gains you nothing, say only: I leave the conversation.")
    if messages[-1]["role"] == "user":
        messages[-1]["content"] += "\n\n" + cue
    else:
        messages.append({"role": "user", "content": cue})
    return messages


def summary(view: PlayerView, partner: str, transcript: Sequence[tuple[str, str]]) -> list[Message]:
    said = "\n".join(f"{who}: {text}" for who, text in transcript)
    ask = (
        f"You just talked with {partner} at {view.place}:\n{said}\n\n"
        "Note for yourself, in one or two sentences, what was said, agreed or hidden that matters for the game."
    )
    return _call(view, ask)


def vote(view: PlayerView, options: Sequence[str], problem: str | None = None) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nThe round is over and it is time to vote, in secret. Name one player to send "
        f"home, from: {', '.join(options)}. Give your private reason.\n"
        'Reply with JSON like {"vote": "Name", "reason": "..."}.'
    )
    return _call(view, ask, problem)


def jury_vote(view: PlayerView, finalists: Sequence[str], problem: str | None = None) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nYou sit on the jury. The finalists are {' and '.join(finalists)}. Which of them "
        "played the better game and deserves to win? Give your reason.\n"
        'Reply with JSON like {"vote": "Name", "reason": "..."}.'
    )
    return _call(view, ask, problem)


def goals(view: PlayerView, history: Sequence[tuple[int, Sequence[str], dict[str, int]]] = (),
          insights: Sequence[str] = ()) -> list[Message]:
    """Goals at three priority levels, set with what came of the last two rounds' goals (their audited
    1-5 scores) and the player's latest insights, as Thudium et al. (2024, section 3.1, appendix B.1) do."""
    parts = [_situation(view), ""]
    if insights:
        parts += ["What you have concluded so far:", *[f"- {i}" for i in insights], ""]
    for rnd, goals_then, scores in history:
        parts.append(f"Your goals in round {rnd}, with how far an observer judged you got (1 = hardly, 5 = done):")
        for level, goal in zip(LEVELS, goals_then):
            if goal:
                score = scores.get(level)
                parts.append(f"- {level} priority: {goal}" + (f" (score {score})" if score else ""))
        parts.append("")
    parts.append(
        "A new round begins. Set your goals for it at three levels of priority: keep a goal, sharpen it or "
        "replace it, as the scores and your strategy suggest. Goals are strategy, not single steps; keep each "
        'to a sentence. Reply with JSON like {"high": "...", "medium": "...", "low": "..."}.'
    )
    return _call(view, "\n".join(parts))


def audit(name: str, goals: Sequence[str], insights: Sequence[str], actions: Sequence[str]) -> list[Message]:
    """The goal-completion audit (Thudium et al., 2024, appendix H.1): an outside judge, not the player, scores
    each goal 1-5 from what the player did and concluded this round."""
    system = ("You judge a contestant's progress in an island game of alliances and votes. You are not a "
              "player. Score each goal from 1 (almost no progress) to 5 (fully achieved), judging only by "
              "the contestant's own actions and conclusions this round.")
    lines = [f"Contestant: {name}", "Goals this round:"]
    lines += [f"- {lvl} priority: {g}" for lvl, g in zip(LEVELS, goals) if g]
    lines += ["", "What they did this round:", *([f"- {a}" for a in actions] or ["- nothing recorded"])]
    lines += ["", "What they concluded after the vote:", *([f"- {i}" for i in insights] or ["- nothing recorded"])]
    lines += ["", 'Reply with JSON like {"high": 3, "medium": 2, "low": 5}.']
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


def impressions(view: PlayerView, about: Sequence[str]) -> list[Message]:
    """A theory of mind of each other player, under the headings of Thudium et al. (2024, Figure L.2): their
    strategy, their likely next move, what they make of you, what to keep from them; with trust and liking,
    which the game report reads for alliances."""
    ask = (
        f"{_situation(view)}\n\nUpdate your reading of the others: for each of {', '.join(about)}, say how "
        "far you trust them (-2 to 2), how much you like them (-2 to 2), what their strategy to win seems to "
        "be, what they will probably do next, what they make of you, and what you should keep from them. "
        "Revise what you thought before where it proved wrong; keep each part short. "
        'Reply with JSON like {"Name": {"trust": 1, "liking": 0, "strategy": "...", "next": "...", '
        '"of_me": "...", "keep_secret": "..."}}.'
    )
    return _call(view, ask)


# The reflection's questions, after Thudium et al. (2024, appendix B.4), in our words: each one retrieves
# memories, and the player reflects on what they bring back together.
REFLECTION_QUESTIONS = (
    "Who did I work most closely with this round?",
    "How did my choices this round change my alliances, and what should I do to strengthen or mend them?",
    "How well did I deal with the biggest threats this round, and which alliances or betrayals should I expect next?",
    "Which of my strategies have worked so far, and how should my plan change as the game shifts?",
)
INSIGHTS = 5  # the paper asks for five high-level insights


def reflection(view: PlayerView, earlier: Sequence[str] = ()) -> list[Message]:
    """Up to five insights over the memories the four questions retrieved (the view's memories), each new
    or revising one of the player's earlier insights by its number, so old beliefs are corrected, not piled up."""
    parts = [_situation(view), "", "Questions to think over:", *[f"- {q}" for q in REFLECTION_QUESTIONS]]
    if earlier:
        parts += ["", "Your earlier insights:", *[f"{i}. {text}" for i, text in enumerate(earlier, 1)]]
    parts += [
        "",
        f"The vote is done. From what you remember, write up to {INSIGHTS} short insights about the game, the "
        "others and your strategy, for yourself only. An insight may revise an earlier one that no longer "
        'holds: give its number. Reply with JSON like {"insights": [{"text": "..."}, {"revises": 2, "text": "..."}]}.',
    ]
    return _call(view, "\n".join(parts))


def fields(view: PlayerView, **extra: str) -> dict[str, str]:
    """Every field a researcher's own prompt text may name, as text, for the moment `view` describes;
    `extra` adds what only some tasks have (options, partner, transcript, ...). Unknown ones read ""."""
    from studio.model.island import PROMPT_FIELDS

    base = {
        "name": view.name, "persona": view.persona, "rules": view.rules, "situation": _situation(view),
        "memories": "\n".join(f"- {m}" for m in view.memories),
        "goals": "\n".join(f"- {lvl} priority: {g}" for lvl, g in zip(LEVELS, view.goals) if g),
        "impressions": "\n".join(f"- {who}: {what}" for who, what in view.impressions.items()),
        "questions": "\n".join(f"- {q}" for q in REFLECTION_QUESTIONS),
    }
    out = {name: "" for name in PROMPT_FIELDS}
    out.update(base)
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def custom(texts: dict[str, str], values: dict[str, str], studio: list[Message]) -> list[Message]:
    """The researcher's own wording for a task: their system and/or user text with the moment's fields filled
    in, each part they leave out kept as the studio's. A conversation's turns become one user message."""
    system = texts["system"].format(**values) if "system" in texts else studio[0]["content"]
    user = texts["user"].format(**values) if "user" in texts else studio[-1]["content"]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
