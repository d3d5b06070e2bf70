"""World Info's timed effects, groups, recursion options and extra texts to match, as SillyTavern runs
them: the entries each line is given, and the same again on a rewind, a resumed run and a new take."""

from __future__ import annotations

import pytest

from studio.engine import Engine
from studio.engine.forms import load_play, resolve_cast
from studio.mind.worldinfo import Timed, activate, timed
from studio.model.lorebook import Lorebook
from test_world_info import _entry, _play


def _book(*entries, **settings) -> Lorebook:
    return Lorebook.model_validate({"entries": list(entries), **settings})


def _given(book, lines, **kw) -> list[str]:
    return activate([book], lines, budget_tokens=2000, **kw).names


KRAKEN = _entry(["kraken"], "The kraken sleeps under the pier.", comment="kraken",
                extensions={"sticky": 3, "cooldown": 2})
TEA = _entry(["tea"], "The tea is from the drowned orchard.", comment="tea", extensions={"delay": 4})
SAID = ["A kraken!", "Calm water.", "The kraken again, and tea.", "The kraken, and tea!", "Calm water."]
# Lin answers each line; before her k-th line she has witnessed 2k-1 lines. The kraken entry, activated
# at 1 line, stays for 3 (active at 3 without its key), rests for 2 (not at 5 though named), and is
# found again at 7 and held at 9; the tea entry waits until the chat has 4 lines.
EXPECTED = [["kraken"], ["kraken"], ["tea"], ["kraken", "tea"], ["kraken"]]


async def _lines(engine, said, until: int | None = None) -> None:
    """Sasha says each of `said`, Lin answering each, until Lin has `until` lines in the take."""
    from studio.llm import scripted

    for line in said:
        scripted.queue(line, task="speak", role="other")
    while sum(1 for e in engine.path if e.character == "Lin" and e.kind == "stage") < (until or len(said)):
        await engine.step()


def _lore(engine) -> list[list[str]]:
    return [e.data.get("lore", []) for e in engine.path if e.character == "Lin" and e.kind == "stage"]


async def test_sticky_cooldown_and_delay_per_line_and_the_same_after_a_rewind_and_a_resume(
        tmp_path, store, gateway):
    path = _play(tmp_path, {"entries": [KRAKEN, TEA], "scan_depth": 2})
    path.write_text(path.read_text().replace("turns = 6", "turns = 12"))
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await _lines(engine, SAID)
    assert _lore(engine) == EXPECTED

    second = [e for e in engine.path if e.character == "Lin" and e.kind == "stage"][1]
    engine.rewind_to(second.id)
    await _lines(engine, SAID[2:], until=5)  # a new take of the last three: read back from the same events
    assert _lore(engine) == EXPECTED

    again = Engine(store, engine.run_id, gateway=gateway)  # resumed: nothing kept but the events
    await _lines(again, ["Calm water."], until=6)
    assert _lore(again) == [*EXPECTED, []]


def test_timed_effects_read_from_earlier_calls():
    book = _book(KRAKEN, _entry(["eel"], "Eels.", comment="eel", extensions={"cooldown": 3}))
    assert timed([book], [(1, ["kraken"])], 3) == Timed(3, frozenset({"kraken"}), frozenset())
    assert timed([book], [(1, ["kraken"]), (3, ["kraken"])], 5) == Timed(5, frozenset(), frozenset({"kraken"}))
    # held again while sticky: its time runs from the first activation, not the newest
    assert timed([book], [(1, ["kraken"]), (3, ["kraken"])], 6).cooldown == frozenset()
    assert timed([book], [(2, ["eel"])], 4).cooldown == {"eel"} and timed([book], [(2, ["eel"])], 5) == Timed(5)


def test_a_sticky_entry_ignores_its_keys_its_probability_and_wins_its_group():
    held = _entry(["kraken"], "Held.", comment="held", extensions={"group": "sea", "probability": 0,
                                                                  "useProbability": True})
    rival = _entry(["water"], "Rival.", comment="rival", extensions={"group": "sea", "group_override": True})
    book = _book(held, rival)
    assert _given(book, ["Calm water."]) == ["rival"]
    assert _given(book, ["Calm water."], timed=Timed(3, frozenset({"held"}))) == ["held"]
    assert _given(book, ["Calm water."], timed=Timed(3, cooldown=frozenset({"rival"}))) == []


def test_group_scoring_keeps_the_entries_whose_keys_matched_most():
    storm = _entry(["rain", "thunder"], "Storm.", comment="storm", extensions={"group": "weather"})
    shower = _entry(["rain"], "Shower.", comment="shower", extensions={"group": "weather"})
    mist = _entry(["rain"], "Mist.", comment="mist", extensions={"group": "weather", "group_weight": 0})
    lines = ["Rain and thunder over the bay."]
    assert _given(_book(storm, shower, mist, extensions={"use_group_scoring": True}), lines) == ["storm"]
    scored_one = {**shower, "extensions": {**shower["extensions"], "use_group_scoring": True}}
    winners = {tuple(_given(_book(storm, scored_one, mist), lines, moment=(1, t))) for t in range(30)}
    assert winners == {("storm",)}  # the scored loser leaves; the draw is between the others, mist weighs 0


def test_group_weights_draw_by_the_seed_and_an_override_wins_by_order():
    heavy = _entry(["bell"], "Heavy.", comment="heavy", extensions={"group": "bells", "group_weight": 300})
    light = _entry(["bell"], "Light.", comment="light", extensions={"group": "bells", "group_weight": 100})
    draws = [_given(_book(heavy, light), ["The bell."], seed=3, moment=(1, t)) for t in range(200)]
    assert draws == [_given(_book(heavy, light), ["The bell."], seed=3, moment=(1, t)) for t in range(200)]
    assert all(len(d) == 1 for d in draws) and 120 < sum(d == ["heavy"] for d in draws) < 180
    low = _entry(["bell"], "Low.", comment="low", order=1, extensions={"group": "bells", "group_override": True})
    high = _entry(["bell"], "High.", comment="high", order=9, extensions={"group": "bells", "group_override": True})
    assert _given(_book(heavy, low, high), ["The bell."]) == ["high"]


CASTLE = _entry(["castle"], "castle: The castle belongs to the duke.", comment="castle")
DUKE = _entry(["duke"], "duke: The duke has an heir.", comment="duke")
HEIR = _entry(["heir"], "heir: The heir hid the gold.", comment="heir")


@pytest.mark.parametrize("flags, expected", [
    ({}, ["castle", "duke", "heir"]),
    ({"castle": {"prevent_recursion": True}}, ["castle"]),  # its text starts nothing
    ({"duke": {"exclude_recursion": True}}, ["castle"]),  # not found in others' text
    ({"duke": {"delay_until_recursion": True}}, ["castle", "duke", "heir"]),
    # only a recursive pass may find it, and none runs when the first pass found nothing
    ({"castle": {"delay_until_recursion": True}}, []),
    ({"duke": {"delay_until_recursion": 1}, "heir": {"delay_until_recursion": 2}}, ["castle", "duke", "heir"]),
    ({"duke": {"delay_until_recursion": 2}, "castle": {"group": "g"}, "heir": {"group": "g"}}, ["castle", "duke"]),
])
def test_recursion_options_per_entry(flags, expected):
    entries = [{**e, "extensions": {**e["extensions"], **flags.get(e["comment"], {})}} for e in (CASTLE, DUKE, HEIR)]
    assert sorted(_given(_book(*entries, recursive_scanning=True), ["Whose castle is that?"])) == sorted(expected)


def test_delayed_levels_wait_for_the_lower_ones_and_for_recursion():
    entries = [CASTLE, {**DUKE, "extensions": {"delay_until_recursion": 2}},
               {**HEIR, "keys": ["castle"], "extensions": {"delay_until_recursion": 1}}]
    assert _given(_book(*entries, recursive_scanning=True), ["The castle."]) == ["castle", "duke", "heir"]
    assert _given(_book(*entries), ["The castle."]) == ["castle"]  # no recursion: the delayed never come


@pytest.mark.parametrize("flag, source", [
    ("match_character_description", "character_description"), ("match_character_personality",
                                                                "character_personality"),
    ("match_scenario", "scenario"), ("match_persona_description", "persona_description"),
    ("match_creator_notes", "creator_notes"), ("match_character_depth_prompt", "character_depth_prompt")])
def test_match_flags_scan_the_characters_own_texts(flag, source):
    flagged = _entry(["lighthouse"], "Flagged.", comment="flagged", extensions={flag: True})
    plain = _entry(["lighthouse"], "Plain.", comment="plain")
    book = _book(flagged, plain)
    assert _given(book, ["Good evening."], sources={source: "She keeps the lighthouse."}) == ["flagged"]
    assert _given(book, ["Good evening."], sources={"scenario" if source != "scenario" else "creator_notes":
                                                    "She keeps the lighthouse."}) == []


async def test_a_flagged_entry_matches_the_cards_scenario_in_a_run(tmp_path, store, gateway):
    import json
    import shutil

    from conftest import ROOT
    from studio.cli import main

    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    shutil.copy(ROOT / "characters" / "sasha_interviewer.toml", tmp_path / "characters")
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Lin", "description": "Lin keeps the tea house.", "personality": "", "first_mes": "",
        "mes_example": "", "scenario": "A night at the lighthouse.", "creator_notes": "", "system_prompt": "",
        "post_history_instructions": "", "alternate_greetings": [], "tags": [], "creator": "", "character_version": "",
        "extensions": {}, "character_book": {"entries": [
            _entry(["lighthouse"], "The lamp has been dark for a year.", extensions={"match_scenario": True}),
            _entry(["lighthouse"], "Not flagged, not shown.")]}}}
    (tmp_path / "lin.json").write_text(json.dumps(card))
    assert main(["import", str(tmp_path / "lin.json"), "--dir", str(tmp_path),
                 "--out", str(tmp_path / "characters" / "lin.toml")]) == 0
    path = tmp_path / "plays" / "tea.toml"
    path.write_text('title = "Tea"\nseed = 5\nturns = 2\nepilogue = false\ngreeting = false\n\n'
                    '[cast.ego]\ncharacter = "lin"\n\n[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await _lines(engine, ["Good evening."])
    system = [m for ctx, m in gateway.calls if ctx.character == "Lin" and ctx.task == "speak"][-1][0]["content"]
    assert "The lamp has been dark for a year." in system and "Not flagged, not shown." not in system


@pytest.mark.parametrize("lines, held, resting", [
    (1, True, False), (2, True, False), (3, True, False),  # given at line 1, sticky 3: lines 1 to 3
    (4, False, True), (5, False, True),                    # then its cooldown of 2: lines 4 and 5
    (6, False, False),                                     # free again at line 6
])
def test_a_sticky_entry_is_held_for_exactly_its_count_and_rests_for_exactly_its_cooldown(lines, held, resting):
    """SillyTavern's count: an entry given when the chat had L lines is held while the chat has fewer than
    L + sticky lines, then rests while it has fewer than L + sticky + cooldown."""
    book = _book(KRAKEN)
    now = timed([book], [(1, ["kraken"])], lines)
    assert ("kraken" in now.sticky, "kraken" in now.cooldown) == (held, resting)
    # what a call is given follows: held without its key, kept out with it, found again once free
    assert _given(book, ["Calm water."], timed=now) == (["kraken"] if held else [])
    assert _given(book, ["The kraken!"], timed=now) == ([] if resting else ["kraken"])


def test_a_sticky_count_of_one_holds_only_the_line_it_was_given_at():
    book = _book(_entry(["eel"], "Eels.", comment="eel", extensions={"sticky": 1}))
    assert timed([book], [(4, ["eel"])], 4).sticky == {"eel"}
    assert timed([book], [(4, ["eel"])], 5).sticky == frozenset()


def test_an_entry_given_again_as_its_sticky_lines_end_starts_its_time_anew():
    book = _book(_entry(["eel"], "Eels.", comment="eel", extensions={"sticky": 3}))
    assert timed([book], [(1, ["eel"]), (3, ["eel"])], 4).sticky == frozenset()  # given while held: time kept
    assert timed([book], [(1, ["eel"]), (4, ["eel"])], 6).sticky == {"eel"}  # given once free: from line 4
