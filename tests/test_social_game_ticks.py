"""A round of the social game ends after its ticks even when the tick's last action opens a conversation.

Found running the lab's game experiment on the embedded model: when the last player of a tick chose to
talk, the tick never ended (the conversation drained the queue, not the action), so the same tick was
played again and again and round 1 never reached its vote.
"""

from __future__ import annotations

import asyncio
import json

from conftest import PLAYS, RecordingGateway
from studio.engine import Engine
from studio.game import rules
from studio.llm import scripted
from studio.model import load_play, resolve_cast
from studio.store import events as ev


def test_a_tick_whose_last_action_is_a_talk_still_ends_and_the_round_votes(store):
    play = load_play(PLAYS / "island.toml")
    everyone = list(play.game.start)
    # all eight at Camp, one action a round: every act can be a talk
    game = play.game.model_copy(update={"actions_per_round": 1, "start": {name: "Camp" for name in everyone}})
    play = play.model_copy(update={"game": game})
    cast = resolve_cast(play, PLAYS / "island.toml", model="scripted")
    engine = Engine.create(store, cast, {}, gateway=RecordingGateway())
    order = rules.turn_order(engine.state.game, engine.state.seed)  # who acts when in tick 1
    for i, name in enumerate(order):  # each talks to the next in the order: never to themselves
        scripted.queue(json.dumps({"action": "talk", "target": order[(i + 1) % len(order)]}), task="act")
    for _ in range(60):
        if any(e.kind == ev.VOTE for e in engine.path):
            break
        asyncio.run(engine.play_turn())
    acts = [e for e in engine.path if e.kind == ev.DIRECTION and e.data.get("task") == "act"]
    assert any(e.kind == ev.VOTE for e in engine.path), "round 1 never reached its vote"
    assert len(acts) == 8 and all(e.data.get("action") == "talk" for e in acts)  # one tick: each acted once
