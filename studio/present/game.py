"""How a social game reads: the island as it stands (places, who is where, alliances, votes, the jury),
and a player's private reasoning behind a line. Names and places come from files: plain Text throughout."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from studio.store import events as ev


def game_text(state: Any, built: dict[str, Any] | None) -> Text:
    """The island as it stands: `state`, the social game's folded state (anything else is not a game),
    and `built`, the report's reading of it (`studio.game.report.build`)."""
    from studio.engine.forms.social import SocialState

    if not isinstance(state, SocialState) or built is None:
        return Text("Not a social game: this view shows a run of a play with form = \"social_game\".", style="dim")
    out = Text()
    _heading(out, state)
    _island(out, state)
    _alliances(out, built)
    _voting(out, state)
    out.append("\nJury\n", style="bold underline")
    jury = state.game.jury
    out.append("  " + (", ".join(jury) if jury else "empty") + "\n", style="" if jury else "dim")
    out.append("\nEach player's private reasoning (choices, votes) is in the backstage of their lines (2).",
               style="dim")
    return out


def _heading(out: Text, state: Any) -> None:
    """Where the game is: its round and tick, the jury's turn, or its winner."""
    game, rules = state.game, state.rules
    if game.finished:
        out.append("Game over", style="bold")
        out.append(" · winner ")
        out.append(game.winner or "", style="bold green")
        return
    out.append(f"Round {game.round}", style="bold")
    out.append(f" · tick {min(game.tick, rules.actions_per_round)} of {rules.actions_per_round}")
    if game.final:
        out.append(" · the jury decides", style="yellow")


def _island(out: Text, state: Any) -> None:
    """The map, each place with its paths and who stands there, and where the idol is."""
    game, rules = state.game, state.rules
    out.append("\n\nMap\n", style="bold underline")
    for place in rules.places:
        out.append(place.name, style="bold")
        near = rules.neighbours(place.name)
        if near:
            out.append("  → " + ", ".join(near), style="dim")
        out.append("\n")
        here = [p for p in game.alive if game.where.get(p) == place.name]
        out.append("   " + (", ".join(here) if here else "nobody") + "\n", style="" if here else "dim")
    if game.idol_holder and not game.idol_spent:
        out.append("\nIdol held by ")
        out.append(game.idol_holder)
        out.append(" (secret)\n", style="dim")
    elif game.idol_spent:
        out.append("\nIdol spent\n", style="dim")


def _alliances(out: Text, built: dict[str, Any]) -> None:
    out.append("\nAlliances (mutual trust in impressions)\n", style="bold underline")
    if built["allies"]:
        for a, b in built["allies"]:
            out.append(f"  {a} ⇄ {b}\n")
    else:
        out.append("  none yet\n", style="dim")
    for a, b in built["trusts"]:
        out.append(f"  {a} → {b}\n", style="dim")


def _voting(out: Text, state: Any) -> None:
    """Ballots cast so far (secret until the tally), and the last round's tally."""
    if state.votes:
        who = "the jury" if state.game.final else "the players"
        out.append(f"\nVoting: {len(state.votes)} ballots cast by {who} (secret until the tally)\n", style="yellow")
    if not state.tallies:
        return
    last = state.tallies[-1]
    out.append(f"\nVote, round {last.get('round')}\n", style="bold underline")
    counts = last.get("counts") or {}
    for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {name}: {count}\n")
    if last.get("tie"):
        out.append("  tie between " + ", ".join(last["tie"]) + ", broken by the seeded draw\n", style="dim")
    if last.get("idol_played_by"):
        out.append(f"  idol played by {last['idol_played_by']}\n", style="dim")
    if last.get("eliminated"):
        out.append("  → out: ")
        out.append(str(last["eliminated"]) + "\n", style="bold")


GAME_RECORDS = {
    ev.CHOICE: "An answer the rules could not use",
    ev.GOALS: "Goals for the round",
    ev.VOTE: "Vote",
    ev.MEMORY: "Note of a conversation",
    ev.IMPRESSIONS: "Impressions of the others",
    ev.REFLECTION: "Looking back on the round",
}
"""A game's private records, named as a person would name them in the backstage."""


def private_reasoning(path: list[Any], event: Any) -> list[Text]:
    """The backstage of a line in a game: what its player privately chose, planned, thought and voted this
    round, up to that line (read from the take's events, `path`, which other players never see)."""
    parts: list[Text] = []
    if not event.character:
        return parts
    kinds = set(ev.GAME)
    for past in path:
        if past.id > event.id:
            break
        if past.character != event.character or past.scene != event.scene or past.kind not in kinds:
            continue
        data = past.data or {}
        head = Text(f"{GAME_RECORDS.get(past.kind, past.kind)} (event #{past.id})", style="bold")
        parts.append(head)
        body = Text(past.text or "", style="italic")
        reason = data.get("reason")
        if reason and reason not in (past.text or ""):
            body.append(f"\nreason: {reason}")
        parts.append(body)
        parts.append(Text(""))
    if not parts:
        parts.append(Text(f"{event.character} has no private choices, votes or thoughts recorded this round yet.",
                          style="dim"))
    return [Text(f"{event.character}'s private reasoning, round {event.scene}", style="bold underline"), Text("")] + parts


def is_game(engine: Any) -> bool:
    """Whether a run is a social game: its state is the game's."""
    from studio.engine.forms.social import SocialState

    return isinstance(getattr(engine, "state", None), SocialState)
