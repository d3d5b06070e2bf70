"""The game view (key 5): the island as the run stands now, for a run whose form is the social game.

Everything shown is read from the engine's own state and from `studio.game.report.build` (alliances are
the report's reading of the impressions, not a second one), so it follows stepping, rewinds and takes:
the pane redraws itself whenever the run moves while it is shown. Names and places come from files: plain Text throughout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from studio.tui.widgets.panes import RunPane

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


def game_text(engine: EngineView) -> Text:
    from studio.engine.forms.social import SocialState
    from studio.game import report

    state = getattr(engine, "state", None)
    if not isinstance(state, SocialState):
        return Text("Not a social game: this view shows a run of a play with form = \"social_game\".", style="dim")
    game, rules = state.game, state.rules
    out = Text()
    if game.finished:
        out.append("Game over", style="bold")
        out.append(" · winner ")
        out.append(game.winner or "", style="bold green")
    else:
        out.append(f"Round {game.round}", style="bold")
        out.append(f" · tick {min(game.tick, rules.actions_per_round)} of {rules.actions_per_round}")
        if game.final:
            out.append(" · the jury decides", style="yellow")
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
    built = report.build(engine)
    out.append("\nAlliances (mutual trust in impressions)\n", style="bold underline")
    if built["allies"]:
        for a, b in built["allies"]:
            out.append(f"  {a} ⇄ {b}\n")
    else:
        out.append("  none yet\n", style="dim")
    for a, b in built["trusts"]:
        out.append(f"  {a} → {b}\n", style="dim")
    if state.votes:
        who = "the jury" if game.final else "the players"
        out.append(f"\nVoting: {len(state.votes)} ballots cast by {who} (secret until the tally)\n", style="yellow")
    if state.tallies:
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
    out.append("\nJury\n", style="bold underline")
    out.append("  " + (", ".join(game.jury) if game.jury else "empty") + "\n", style="" if game.jury else "dim")
    out.append("\nEach player's private reasoning (choices, votes) is in the backstage of their lines (2).",
               style="dim")
    return out


class GamePane(RunPane, VerticalScroll):
    """The game view as a side pane; hidden until `5`, and drawn only while shown."""

    BORDER_TITLE = "Game"

    def compose(self) -> ComposeResult:
        yield Static(Text("No game yet.", style="dim"), id="game")

    def on_mount(self) -> None:
        self.display = False

    def redraw(self, latest: bool = True) -> None:
        if self.engine is not None:
            self.show(self.engine)

    def show(self, engine: EngineView) -> None:
        self.query_one("#game", Static).update(game_text(engine))


def is_game(engine: EngineView) -> bool:
    from studio.engine.forms.social import SocialState

    return isinstance(getattr(engine, "state", None), SocialState)


def private_reasoning(engine: EngineView, event: Any) -> list[Text]:
    """The backstage of a line in a game: what its player privately chose, planned, thought and voted this
    round, up to that line (read from the run's events, which other players never see)."""
    from studio.store import events as ev

    parts: list[Text] = []
    if not event.character:
        return parts
    kinds = set(ev.GAME)
    for past in engine.path:
        if past.id > event.id:
            break
        if past.character != event.character or past.scene != event.scene or past.kind not in kinds:
            continue
        data = past.data or {}
        head = Text(f"{past.kind} (#{past.id})", style="bold")
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
