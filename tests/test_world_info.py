"""World Info as SillyTavern runs it, each rule on crafted entries, checked in the prompt the model gets."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from studio.engine import Engine
from studio.engine.forms import load_play, resolve_cast
from studio.mind.worldinfo import activate, matches
from studio.model.lorebook import Lorebook
from conftest import ROOT

PROMPT = "You are Lin, who keeps the tea house."


def _entry(keys, content, **fields):
    extensions = fields.pop("extensions", {})
    return {"keys": keys, "content": content, "enabled": True, "insertion_order": fields.pop("order", 100),
            "extensions": extensions, **fields}


def _play(tmp_path, book, *, world: bool = False):
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    shutil.copy(ROOT / "characters" / "sasha_interviewer.toml", tmp_path / "characters")
    (tmp_path / "characters" / "lin.toml").write_text(f'name = "Lin"\nprompt = "{PROMPT}"\n')
    (tmp_path / "plays" / "world.json").write_text(json.dumps(book))
    play = tmp_path / "plays" / "tea.toml"
    play.write_text('title = "Tea"\nseed = 5\nturns = 6\nepilogue = false\nlorebooks = ["world.json"]\n\n'
                    '[cast.ego]\ncharacter = "lin"\n\n[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    return play


async def _prompt(tmp_path, store, gateway, entries, said, world=None, **book):
    """Lin's newest call after Sasha has said each of `said`: the messages the model got."""
    from studio.llm import scripted

    path = _play(tmp_path, world or {"name": "Tea house", "entries": entries, **book})
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    for line in said:
        scripted.queue(line, task="speak", role="other")
    while sum(1 for e in engine.path if e.character == "Sasha" and e.kind == "stage") < len(said):
        await engine.step()
    while engine.path[-1].character != "Lin":  # Lin answers the last of them
        await engine.step()
    calls = [m for ctx, m in gateway.calls if ctx.character == "Lin" and ctx.task == "speak"]
    return calls[-1]


def _system(messages):
    return messages[0]["content"]


async def test_a_primary_key_heard_brings_its_entry_and_nothing_else(tmp_path, store, gateway):
    entries = [_entry(["jade kettle"], "The jade kettle was her mother's."),
               _entry(["lantern"], "The lantern is never lit.")]
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["Is that the Jade Kettle?"]))
    assert "The jade kettle was her mother's." in system and "lantern is never lit" not in system


@pytest.mark.parametrize("logic, fires", [(0, True), (1, True), (2, False), (3, False)])
async def test_secondary_keys_follow_the_selective_logic(tmp_path, store, gateway, logic, fires):
    entries = [_entry(["tea"], "Green tea is served cold here.", selective=True, secondary_keys=["green", "black"],
                      extensions={"selectiveLogic": logic})]
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["Some green tea, please."]))
    assert ("Green tea is served cold here." in system) is fires  # green heard, black not


async def test_regex_keys_match_and_a_runaway_pattern_cannot_stall_the_call(tmp_path, store, gateway):
    entries = [_entry(["/dra(g|k)on/i"], "A drakon sleeps under the floor.", use_regex=True),
               _entry(["/((a)+)+$/"], "Runaway key matched.", use_regex=True),
               _entry(["/(x)\\1y/"], "Never shown.", use_regex=True)]
    start = time.perf_counter()
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["The DRAKON stirred, " + "a" * 40 + "!"]))
    assert time.perf_counter() - start < 5
    assert "A drakon sleeps under the floor." in system
    assert "Runaway key matched." not in system and "Never shown." not in system


async def test_plain_keys_on_an_entry_sillytavern_marked_use_regex_still_fire(tmp_path, store, gateway):
    world = {"entries": {"0": {"uid": 0, "key": ["lighthouse", "beacon"], "content": "The beacon failed in 1911.",
                               "useRegex": True, "position": 1, "order": 100, "disable": False},
                         "1": {"uid": 1, "key": ["/^harb(ou)?r$/"], "content": "Anchored, never shown.",
                               "useRegex": True, "position": 1, "order": 100, "disable": False}}}
    system = _system(await _prompt(tmp_path, store, gateway, [], ["Is the lighthouse lit? The harbour is dark."],
                                   world=world))
    assert "The beacon failed in 1911." in system and "Anchored, never shown." not in system


# Keys that take exponential time in a backtracking engine on a long run of "a" with no match at its end;
# each with what it means there: the ones that can match nothing match at the very end of any line.
RUNAWAY = [("/((a)+)+$/", False), ("/((a+))+$/", False), ("/(a?a?)+$/", True), ("/((?:a+))*$/", True),
           ("/a*a*a*a*a*$/", True), ("/(a|aa)+$/", False), ("/(a+)+b/", False)]


@pytest.mark.parametrize("key, found", RUNAWAY)
def test_keys_with_nested_quantifiers_answer_at_once_on_a_long_line(key, found):
    start = time.perf_counter()
    assert matches(key, "a" * 50_000 + "!") is found
    assert matches(key, "aaaab")  is ("b" in key or found)
    assert time.perf_counter() - start < 0.5


def test_a_key_only_the_slow_engine_runs_is_skipped_with_a_note_when_it_runs_long():
    book = Lorebook.model_validate({"entries": [
        _entry(["/((a+)+)\\1b/"], "Backreference lore.", comment="echo"),
        _entry(["/(\\w)\\1/"], "A doubled letter.", comment="double"),
        _entry(["tide"], "The tide turns at six.")]})
    start = time.perf_counter()
    found = activate([book], ["the tide " + "a" * 40_000 + "!", "look: ee"], budget_tokens=500)
    assert time.perf_counter() - start < 2
    assert found.texts == ["A doubled letter.", "The tide turns at six."]
    (note,) = found.notes
    assert "echo" in note and "did not finish" in note


def test_each_slow_key_has_its_own_time_and_each_entry_it_stands_in_is_named_once():
    runaway = [f"/((a+)+)\\{n}b/" for n in (1, 2)]  # each runs long on a long run of "a"
    book = Lorebook.model_validate({"entries": [
        *(_entry([key], "Echo lore.", comment=f"echo {n}") for n, key in enumerate(runaway)),
        _entry([runaway[0]], "The same key, in another entry.", comment="echo again"),
        _entry(["/(\\w)\\1/"], "A doubled letter.", comment="double")]})
    found = activate([book], ["the tide " + "a" * 40_000 + "!", "look: ee"], budget_tokens=500)
    assert found.texts == ["A doubled letter."]
    assert sorted(found.notes) == sorted(f"skipped: the key {key} of {entry}, which did not finish matching in time"
                                         for key, entry in [(runaway[0], "echo 0"), (runaway[1], "echo 1"),
                                                            (runaway[0], "echo again")])


def test_what_is_a_regex_key_follows_sillytavern():
    assert matches("/moon\\s+gate/", "the Moon  Gate") is False  # a pattern's own flags rule its case
    assert matches("/moon\\s+gate/i", "the Moon  Gate")
    assert matches("/a/b/", "see /a/b/ here")  # a bare slash inside: plain text, found as written
    assert not matches("/a/b/", "see a/b here")
    assert matches("/[/", "say /[/ now")  # not a valid pattern: plain text
    assert matches("/^line two$/m", "line one\nline two\nline three")
    assert matches("/(?<n>x)\\k<n>/", "axxb") and not matches("/(?<n>x)\\k<n>/", "axb")


async def test_case_sensitive_keys_and_whole_words(tmp_path, store, gateway):
    entries = [_entry(["Moon"], "Moon is the cat's name.", case_sensitive=True),
               _entry(["sun"], "The sun room faces east."),
               _entry(["cat"], "The cat bites.", extensions={"match_whole_words": True}),
               _entry(["pot"], "The pot is cracked.", extensions={"match_whole_words": True})]
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["The moon and the SUN; concatenate the pot."]))
    assert "Moon is the cat's name." not in system and "The sun room faces east." in system
    assert "The cat bites." not in system and "The pot is cracked." in system


@pytest.mark.parametrize("depth, fires", [(1, False), (4, True)])
async def test_scan_depth_is_how_many_recent_lines_are_searched(tmp_path, store, gateway, depth, fires):
    entries = [_entry(["plum"], "The plum tree was planted in the war.")]
    said = ["A plum tree grows by the door.", "It is raining."]
    system = _system(await _prompt(tmp_path, store, gateway, entries, said, scan_depth=depth))
    assert ("The plum tree was planted in the war." in system) is fires


async def test_position_and_insertion_order_place_entries_around_the_character_and_in_the_history(
        tmp_path, store, gateway):
    entries = [_entry(["tea"], "AFTER-two", position="after_char", order=20),
               _entry(["tea"], "BEFORE", position="before_char", order=5),
               _entry(["tea"], "AFTER-one", position="after_char", order=10),
               _entry(["tea"], "DEEP", extensions={"position": 4, "depth": 1, "role": 1})]
    messages = await _prompt(tmp_path, store, gateway, entries, ["More tea?"])
    system = _system(messages)
    assert system.index("BEFORE") < system.index(PROMPT) < system.index("AFTER-one") < system.index("AFTER-two")
    assert "DEEP" not in system
    assert messages[-2] == {"role": "user", "content": "DEEP"}  # one message from the end, as the user


async def test_constant_entries_always_and_disabled_entries_never(tmp_path, store, gateway):
    entries = [_entry([], "The tea house opens at dawn.", constant=True),
               _entry(["tea"], "Disabled lore.", enabled=False, constant=True)]
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["Hello."]))
    assert "The tea house opens at dawn." in system and "Disabled lore." not in system


@pytest.mark.parametrize("recursive, steps, expected", [  # a step is a pass: the first scans the lines
    (False, None, ["castle"]), (True, None, ["castle", "duke", "heir"]), (True, 1, ["castle"]),
    (True, 2, ["castle", "duke"])])
async def test_recursion_scans_activated_text_up_to_its_limit(tmp_path, store, gateway, recursive, steps, expected):
    entries = [_entry(["castle"], "castle: The castle belongs to the Duke."),
               _entry(["duke"], "duke: The Duke has one heir."),
               _entry(["heir"], "heir: The heir is missing.")]
    book = {"recursive_scanning": recursive}
    if steps:
        book["extensions"] = {"max_recursion_steps": steps}
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["Whose castle is that?"], **book))
    assert [w for w in ("castle", "duke", "heir") if f"{w}: The" in system] == expected


async def test_a_token_budget_keeps_whole_entries_most_important_first(tmp_path, store, gateway):
    entries = [_entry(["tea"], "Low: " + "a long note about tea " * 6, priority=1),
               _entry(["tea"], "High: the tea is poisoned.", priority=10),
               _entry([], "Always: the door sticks.", constant=True)]
    system = _system(await _prompt(tmp_path, store, gateway, entries, ["Tea?"], token_budget=20))
    assert "High: the tea is poisoned." in system and "Always: the door sticks." in system
    assert "Low:" not in system and "cut to fit" not in system


async def test_a_world_info_file_is_read_as_sillytavern_writes_it(tmp_path, store, gateway):
    world = {"entries": {"0": {"uid": 0, "key": ["ferry"], "keysecondary": [], "content": "The ferry sank in 1911.",
                               "comment": "ferry", "constant": False, "selective": False, "order": 100,
                               "position": 1, "disable": False, "caseSensitive": None, "matchWholeWords": None},
                         "1": {"uid": 1, "key": ["ferry"], "content": "Switched off.", "disable": True,
                               "position": 0, "order": 100}}}
    from studio.llm import scripted

    path = _play(tmp_path, world, world=True)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("Did you take the ferry?", task="speak", role="other")
    await engine.play_turn()
    system = [m for ctx, m in gateway.calls if ctx.character == "Lin" and ctx.task == "speak"][-1][0]["content"]
    assert system.index(PROMPT) < system.index("The ferry sank in 1911.") and "Switched off." not in system


async def test_lore_fires_only_on_lines_the_character_witnessed(tmp_path, store, gateway):
    from studio.llm import scripted

    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    for stem in ("mara_lighthouse", "sasha_interviewer", "jenny"):
        shutil.copy(ROOT / "characters" / f"{stem}.toml", tmp_path / "characters")
    (tmp_path / "plays" / "world.json").write_text(json.dumps(
        {"scan_depth": 20, "entries": [_entry(["wreck"], "The wreck holds gold.")]}))
    path = tmp_path / "plays" / "harbour.toml"
    path.write_text(
        'title = "Harbour"\nform = "ensemble"\nnext = "round_robin"\nseed = 5\nturns = 6\nepilogue = false\n'
        'lorebooks = ["world.json"]\n\n[[scenes]]\nbrief = "The quay."\non_stage = ["Sasha", "Jenny"]\n'
        'enter = { Mara = 2 }\n\n[[cast.characters]]\ncharacter = "sasha_interviewer"\n\n'
        '[[cast.characters]]\ncharacter = "jenny"\n\n[[cast.characters]]\ncharacter = "mara_lighthouse"\n')
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("Nobody speaks of the wreck.", task="speak")
    while not any(e.character == "Mara" and e.kind == "stage" for e in engine.path):
        await engine.play_turn()
    shown = {ctx.character: m[0]["content"] for ctx, m in gateway.calls if ctx.task == "speak"}
    assert "The wreck holds gold." not in shown["Mara"]  # said before she came on
    heard = [c for c in ("Sasha", "Jenny") if "The wreck holds gold." in shown[c]]
    assert heard  # the ones on stage were given it


def test_activation_is_the_same_for_the_same_lines():
    book = Lorebook.model_validate({"entries": [
        _entry(["bell"], "Maybe the bell.", extensions={"probability": 50, "useProbability": True}),
        _entry(["bell"], "Always the bell.")]})
    runs = [activate([book], ["The bell rang."], budget_tokens=500, seed=9, moment=(1, t)).texts for t in range(20)]
    again = [activate([book], ["The bell rang."], budget_tokens=500, seed=9, moment=(1, t)).texts for t in range(20)]
    assert runs == again and all("Always the bell." in r for r in runs)
    assert {len(r) for r in runs} == {1, 2}  # a 50% entry is drawn, by the seed, not by the clock


def test_a_missing_lorebook_is_one_message_naming_the_play(tmp_path):
    from studio.model.errors import InputError

    path = _play(tmp_path, {"entries": []})
    path.write_text(path.read_text().replace('lorebooks = ["world.json"]', 'lorebooks = ["atlas"]'))
    with pytest.raises(InputError) as caught:
        resolve_cast(load_play(path), path, model="scripted")
    assert "atlas" in str(caught.value) and "lorebooks" in str(caught.value)


async def test_the_line_names_the_entries_that_shaped_it(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _play(tmp_path, {"entries": [_entry(["kettle"], "The kettle was her mother's.", comment="the kettle"),
                                        _entry([], "The tea house opens at dawn.", constant=True, name="hours")]})
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("Is that a kettle?", task="speak", role="other")
    await engine.play_turn()
    lin = next(e for e in engine.path if e.character == "Lin" and e.kind == "stage")
    assert sorted(lin.data["lore"]) == ["hours", "the kettle"]


async def test_a_key_skipped_for_time_is_recorded_on_the_line_it_would_have_shaped(tmp_path, store, gateway):
    from studio.llm import scripted

    path = _play(tmp_path, {"entries": [_entry(["/((a+)+)\\1b/"], "Echo.", comment="echo"),
                                        _entry(["kettle"], "The kettle was her mother's.", comment="the kettle")]})
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    scripted.queue("Is that a kettle? " + "a" * 30_000 + "!", task="speak", role="other")
    start = time.perf_counter()
    await engine.play_turn()
    assert time.perf_counter() - start < 10
    lin = next(e for e in engine.path if e.character == "Lin" and e.kind == "stage")
    assert lin.data["lore"][0] == "the kettle"
    assert lin.data["lore"][1:] == ["skipped: the key /((a+)+)\\1b/ of echo, which did not finish matching in time"]


async def test_a_resumed_run_keeps_its_lorebook_and_its_runaway_keys_still_answer_at_once(tmp_path, store, gateway):
    from studio.llm import scripted

    entries = [_entry([key], f"Runaway {n}.") for n, key in enumerate(
        ["/((a)+)+$/", "/((a+))+$/", "/(a?a?)+b$/", "/((?:a+))*b$/", "/a*a*a*a*a*b$/"])]
    path = _play(tmp_path, {"entries": [*entries, _entry(["gull"], "The gulls know.")]})
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    long_line = "a" * 50_000 + " A gull!"
    start = time.perf_counter()
    scripted.queue(long_line, task="speak", role="other")
    await engine.play_turn()
    (path.parent / "world.json").write_text(json.dumps({"entries": []}))  # the file emptied: the run keeps its copy
    again = Engine(store, engine.run_id, gateway=gateway)
    scripted.queue(long_line, task="speak", role="other")
    await again.play_turn()
    assert time.perf_counter() - start < 20
    lore = [e.data.get("lore") for e in again.path if e.character == "Lin" and e.kind == "stage"]
    assert lore == [["gull"], ["gull"]]
