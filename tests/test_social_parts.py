"""The social game's parts each on their own, without the engine: how replies are read, what comes next, how an
event changes the state, who witnesses an action, and what a player is allowed to answer."""

from __future__ import annotations

import json

from conftest import PLAYS
from studio.engine.forms import load_play, resolve_cast
from studio.engine.forms.base import Step
from studio.engine.forms.social import SocialGame, answers, asking, fold, plan, reading
from studio.engine.forms.social.state import CHOICE, VOTE
from studio.store import events as ev
from studio.store.events import Event


def fresh(**game):
    play = load_play(PLAYS / "island.toml")
    if game:
        play = play.model_copy(update={"game": play.game.model_copy(update=game)})
    return SocialGame().new_state(resolve_cast(play, PLAYS / "island.toml", model="scripted"))


def event(kind, text="", *, id=1, role=None, character=None, **data):
    return Event(id, 1, None, kind, text, role=role, character=character, data=data)


# -- answers: the words of a reply ---------------------------------------------------------------

def test_goals_are_read_by_priority_from_lines_json_or_a_plain_list():
    assert answers.goals("High priority: win Bruno over\nLow priority: find the idol") == [
        "win Bruno over", "", "find the idol"]
    assert answers.goals('{"high_priority": "stay", "medium": "fish"}') == ["stay", "fish", ""]
    assert answers.goals("make friends; find food; sleep; swim") == ["make friends", "find food", "sleep"]


def test_audit_scores_outside_one_to_five_are_left_out():
    assert answers.scores('{"high": 4, "medium": 9, "low": "2"}') == {"high": 4, "low": 2}
    assert answers.scores("High priority: 5 (done)\nmedium: 0\nlow: 3") == {"high": 5, "low": 3}
    assert answers.scores("no idea") == {}


def test_insights_revise_earlier_ones_by_number_and_add_at_most_five():
    earlier = ("Bruno lies", "Cleo is kind")
    revised = answers.insights(json.dumps({"insights": [{"text": "Bruno lies to everyone", "revises": 1},
                                                        *[f"new {i}" for i in range(7)]]}), earlier)
    assert revised == ("Bruno lies to everyone", "Cleo is kind", "new 0", "new 1", "new 2", "new 3", "new 4")
    assert answers.insights("- one\n- two", ()) == ("one", "two")


def test_only_a_speaker_who_says_so_leaves_the_conversation():
    assert answers.leaves("Enough. I walk away from this conversation.")
    assert not answers.leaves("I will never leave the island.")


# -- plan: what comes next -----------------------------------------------------------------------

def test_a_round_opens_with_its_heading_then_goals_then_every_player_s_action():
    state = fresh()
    step = plan.next_step(state)
    assert step is not None and (step.task, step.kind, step.role, step.scene) == ("round", ev.SCENE, None, 1)
    tasks = [q[0] for q in state.queue]
    assert tasks == ["round"] + ["goals"] * 8 + ["act"] * 8
    assert {q[1] for q in state.queue if q[0] == "act"} == set(state.names)


def test_a_talk_puts_its_lines_a_side_at_a_time_then_summaries_and_impressions_first():
    state = fresh(talk_lines=2)
    a, b = list(state.names)[:2]
    state.queue = [("act", "later")]
    plan.open_conversation(state, a, b)
    assert [q[:2] for q in state.queue] == [("talk", a), ("talk", b), ("talk", a), ("talk", b), ("summary", a),
                                            ("summary", b), ("impressions", a), ("impressions", b), ("act", "later")]


def test_after_a_tally_everyone_reflects_and_only_model_players_with_goals_are_audited():
    state = fresh()
    keys = sorted(state.names, key=state.names.get)
    state.goals = {keys[0]: ("win",), keys[1]: ("win",)}
    state.humans = {keys[1]}
    plan.after_tally(state)
    assert [q for q in state.queue if q[0] == "audit"] == [("audit", keys[0])]
    assert len([q for q in state.queue if q[0] == "reflect"]) == 8


# -- fold: how an event changes the state --------------------------------------------------------

def test_an_unusable_answer_keeps_the_step_and_remembers_why():
    state = fresh()
    fold.fold(state, event(ev.SCENE, "Round 1", task="round"))
    head = state.queue[0]
    fold.fold(state, event(CHOICE, "??", id=2, task="goals", invalid="say three goals"))
    assert state.queue[0] == head and state.problem == "say three goals"
    fold.fold(state, event(ev.GOALS, "", id=3, task="goals", goals=["win"]))
    assert state.problem is None and state.goals[head[1]] == ("win",) and state.queue[0] != head


def test_a_vote_is_kept_under_the_voter_s_name_and_a_person_can_take_a_seat():
    state = fresh()
    voter, other = sorted(state.names)[:2]
    fold.fold(state, event(ev.CONTROL, "", human={other: True}))
    assert other in state.humans
    state.scene, state.queue = 1, [("vote", voter), ("vote", other), ("tally",)]
    fold.fold(state, event(VOTE, "", id=2, task="vote", vote="Bruno Keller"))
    assert state.votes == {state.names[voter]: "Bruno Keller"} and state.queue[0] == ("vote", other)


# -- reading: who sees what ----------------------------------------------------------------------

def _act(state, name, text):
    role = state.cast.role(state.key(name))
    return reading.read(state, Step(CHOICE, "act", role.key, 1, 1), role, text)


def test_a_walk_is_seen_at_both_ends_and_looking_around_by_the_walker_alone():
    state = fresh()
    walk = _act(state, "Amara Osei", "go to the Beach")
    seen = {state.names[k] for k in walk.data["present"]}
    assert seen == {"Amara Osei", "Bruno Keller", "Chiara Russo", "Dmitri Volkov"}
    look = _act(state, "Amara Osei", '{"action": "describe"}')
    assert look.kind == ev.DIRECTION and look.data["present"] == [state.key("Amara Osei")]


def test_a_vote_for_nobody_is_asked_again_until_a_person_passes():
    state = fresh()
    role = state.cast.role(state.key("Amara Osei"))
    state.humans = {role.key}
    state.problem = "vote for exactly one"
    step = Step(VOTE, "vote", role.key, 1, 1)
    again = reading.read(state, step, role, "someone")
    assert again.kind == CHOICE and "(or 'pass')" in again.data["invalid"]
    passed = reading.read(state, step, role, "Pass")
    assert passed.kind is None and passed.data["vote"] is None and "casts no vote" in passed.text


# -- asking: what a player may answer ------------------------------------------------------------

def test_an_action_s_schema_offers_exactly_the_legal_actions():
    state = fresh()
    role = state.cast.role(state.key("Amara Osei"))
    step = Step(CHOICE, "act", role.key, 1, 1)
    offered = json.loads(asking.schema(state, step, role) or "{}")["anyOf"]
    assert len(offered) == len(asking.choices(state, step, role) or [])
    walks = {o["properties"]["target"]["enum"][0] for o in offered if o["properties"]["action"]["enum"] == ["move"]}
    assert walks == set(state.rules.neighbours("Camp"))
