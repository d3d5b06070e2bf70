"""What a player of the social game is told at each moment, in plain data in and chat messages out.

Every prompt is built from what the player can know: the rules, their own persona, where they stand
and who stands there, their goals and impressions (when their architecture has those modules), and the
memories their lens recalled. Nothing here reads the store; the form hands these functions a player's
view. The wording is ours; the shape follows Thudium et al., 2024 (an action chosen from a stated list, a secret
vote with a reason, goals set per round, impressions of each other player).

Replies that must be choices ask for one small JSON object, and say the plain-words form is fine too:
small models often manage "talk to Ben" where they fumble braces, and the rules read both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

Message = dict[str, str]


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
    memories: Sequence[str] = ()  # recalled, most relevant first
    goals: Sequence[str] = ()  # empty when the goals module is off
    impressions: dict[str, str] = field(default_factory=dict)  # empty when the module is off
    still_in: Sequence[str] = ()
    jury: Sequence[str] = ()
    holds_idol: bool = False


def rules_text(players: int, actions_per_round: int, idol_hint: str = "") -> str:
    text = (
        f"You are one of {players} contestants living on an island in a game of alliances and votes. "
        f"Each round, everyone acts {actions_per_round} times: walk somewhere, talk with someone in the "
        "same place, search the place you are in, or wait. At the end of each round every contestant "
        "still in the game votes in secret to send one other home; the one with the most votes leaves and "
        "joins the jury. When two remain, the jury chooses the winner. Conversations are heard by everyone "
        "standing in the same place, and by no one else."
    )
    if idol_hint:
        text += f" {idol_hint}"
    return text


def _system(view: PlayerView) -> str:
    parts = [view.persona.strip(), "", view.rules]
    if view.goals:
        parts += ["", "Your goals this round, most important first:", *[f"- {g}" for g in view.goals]]
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
    if view.memories:
        lines += ["What you remember that matters now:", *[f"- {m}" for m in view.memories]]
    return "\n".join(lines)


def _call(view: PlayerView, ask: str, problem: str | None = None) -> list[Message]:
    """The player's system prompt and one question; a second chance says what was wrong with the first."""
    if problem:
        ask += f"\n(Your last answer could not be used: {problem}.)"
    return [{"role": "system", "content": _system(view)}, {"role": "user", "content": ask}]


def action(view: PlayerView, options: Sequence[str], problem: str | None = None) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nWhat do you do now? Choose one of: {'; '.join(options)}.\n"
        'Reply with JSON like {"action": "talk", "target": "Name"} or {"action": "move", "target": "Place"}, '
        '{"action": "search"} or {"action": "wait"}; or just say it, e.g. "talk to Name".'
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
    cue += " One to three sentences of direct speech, without your name in front."
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


def goals(view: PlayerView) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nA new round begins. Set yourself up to three goals for it, the most important "
        'first, each a short sentence. Reply with JSON like {"goals": ["...", "..."]}.'
    )
    return _call(view, ask)


def impressions(view: PlayerView, about: Sequence[str]) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nUpdate what you think of the others: for each of {', '.join(about)}, say how "
        "far you trust them (-2 to 2), how much you like them (-2 to 2) and what you think they want. "
        'Reply with JSON like {"Name": {"trust": 1, "liking": 0, "wants": "..."}}.'
    )
    return _call(view, ask)


def reflection(view: PlayerView) -> list[Message]:
    ask = (
        f"{_situation(view)}\n\nThe vote is done. Looking back on this round, what have you learnt about the "
        "game and the others? Two or three sentences, for yourself only."
    )
    return _call(view, ask)
