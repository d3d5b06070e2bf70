"""A card's macros are filled when a prompt is built: the names of this scene, seeded chance that replays,
the recorded time, and other apps' template code never sent."""

from __future__ import annotations

import shutil

from hypothesis import HealthCheck, given, settings, strategies as st

from studio.engine import Engine
from studio.engine.forms import load_play, resolve_cast
from studio.model.macros import MacroContext, macro_notes, resolve, unknown_macros
from conftest import ROOT


def _play(tmp_path, prompt: str, description: str = "", extra: str = "", other: str = "sasha_interviewer"):
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    shutil.copy(ROOT / "characters" / f"{other}.toml", tmp_path / "characters")
    sheet = tmp_path / "characters" / "lin.toml"
    sheet.write_text(f'name = "林"\ndescription = """{description}"""\nprompt = """{prompt}"""\n{extra}')
    play = tmp_path / "plays" / "tea.toml"
    play.write_text('title = "Tea"\nseed = 5\nturns = 2\nepilogue = false\n\n[cast.ego]\n'
                    f'character = "lin"\n\n[[cast.others]]\ncharacter = "{other}"\n')
    return play


async def _run(path, store, gateway):
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    await engine.play_to_end()
    return engine


def _systems(gateway, character):
    return [m[0]["content"] for ctx, m in gateway.calls if ctx.character == character and ctx.task == "speak"]


async def test_char_and_user_name_the_character_and_whom_they_face_in_any_language(tmp_path, store, gateway):
    path = _play(tmp_path, "{{char}}是茶馆的老板。{{user}}刚进门。<BOT> greets <USER>.",
                 description="{{char}}，茶馆老板")
    await _run(path, store, gateway)
    lin = _systems(gateway, "林")
    assert lin and "林是茶馆的老板。Sasha刚进门。林 greets Sasha." in lin[0]
    assert "the other person" not in lin[0]
    sasha = _systems(gateway, "Sasha")
    assert "林，茶馆老板" in sasha[0]  # what the others know of her, her own macros filled as hers


async def test_pick_is_stable_through_the_run_and_random_roll_and_time_replay_exactly(tmp_path, store, gateway):
    prompt = "Tea: {{pick::oolong::pu-erh::jasmine::green::white}}. Mood: {{random::calm::sharp::tired::merry}}. " \
             "Dice {{roll:d20}}. At {{time}} on {{date}}."
    path = _play(tmp_path, prompt)
    engine = await _run(path, store, gateway)
    first = _systems(gateway, "林")
    picks = {s.split("Tea: ")[1].split(".")[0] for s in first}
    assert len(picks) == 1 and picks <= {"oolong", "pu-erh", "jasmine", "green", "white"}
    assert all("{{" not in s for s in first)
    # regenerate her first line: the same moment gives the very same prompt
    lines = [e for e in engine.path if e.character == "林" and e.kind == "stage"]
    before = len(gateway.calls)
    await engine.regenerate(lines[0].id)
    again = [m[0]["content"] for ctx, m in gateway.calls[before:] if ctx.character == "林" and ctx.task == "speak"]
    assert again[0] == first[0]


async def test_template_code_and_comments_never_reach_the_model(tmp_path, store, gateway):
    path = _play(tmp_path, "{{// a note to the card's author}}You pour tea.<% if (x) { %>secret<% } %>"
                           "{{setvar::count::1}}{{format_message_variable::stat}} Be kind.")
    await _run(path, store, gateway)  # the conftest's check fails any call with '{{' in it
    lin = _systems(gateway, "林")[0]
    assert "You pour tea. Be kind." in lin and "secret" not in lin and "<%" not in lin


def test_unknown_macros_are_left_as_written_and_import_names_them_once():
    ctx = MacroContext(char="Ann", user="Ben")
    assert resolve("{{char}} sees {{weather}}", ctx) == "Ann sees {{weather}}"
    assert unknown_macros("{{weather}} and {{weather}}") == ["{{weather}}"]
    notes = macro_notes({"description": "{{weather}} <%= x %>", "first_mes": "{{getvar::a}} {{weather}}",
                         "extensions": {"regex_scripts": ["{{match}}"]}})
    assert notes == ["macros this studio cannot fill, left as written: {{weather}}"]
    assert "{{match}}" not in " ".join(notes)  # other apps' settings are not sent, so not named


def test_start_lines_separate_examples_and_original_is_the_studios_own_text():
    ctx = MacroContext(char="Ann", user="Ben", original="You are Ann.")
    text = "{{original}} Be brief.\n<START>\n{{user}}: hi\n{{char}}: hello\n<START>\n{{user}}: bye"
    assert resolve(text, ctx) == "You are Ann. Be brief.\n\nBen: hi\nAnn: hello\n\nBen: bye"


def test_inner_macros_are_filled_first_and_dice_are_bounded():
    ctx = MacroContext(char="Ann", user="Ben", seed=3)
    assert resolve("{{random::{{char}}::{{char}}}}", ctx) == "Ann"
    assert resolve("{{pick:{{user}}, {{user}}}} waves", ctx) == "Ben waves"
    assert resolve("{{weather::{{char}}}}", ctx) == "{{weather::Ann}}"  # unknown outside, filled inside
    for spec, low, high in (("99999999d6", 100, 600), ("d99999999", 1, 1_000_000), ("0d6", 1, 6),
                            ("2d6+99999999", 1_000_002, 1_000_012), ("20", 1, 20)):
        rolled = resolve(f"{{{{roll:{spec}}}}}", ctx)
        assert rolled.lstrip("-").isdigit() and low <= int(rolled) <= high, (spec, rolled)


def test_a_roll_that_names_no_dice_is_left_out_and_import_lists_it(tmp_path, capsys):
    import json

    from studio.cli import main

    ctx = MacroContext(char="Ann", user="Ben")
    assert resolve("Dice: {{roll:²}}.", ctx) == "Dice: ."
    assert unknown_macros("{{roll:²}} {{roll:2d6}} {{random::{{char}}::b}}") == ["{{roll:²}}"]
    card = {"spec": "chara_card_v2", "data": {"name": "Dee", "description": "{{char}} rolls {{roll:²}}."}}
    (tmp_path / "dee.json").write_text(json.dumps(card))
    assert main(["import", str(tmp_path / "dee.json"), "--dir", str(tmp_path)]) == 0
    assert "cannot fill, left as written: {{roll:²}}" in capsys.readouterr().out


async def test_a_card_with_a_roll_it_cannot_read_still_plays(tmp_path, store, gateway):
    path = _play(tmp_path, "You are {{char}}. Luck: {{roll:²}}. {{random::{{user}}::{{user}}}} is here.")
    await _run(path, store, gateway)
    lin = _systems(gateway, "林")
    assert lin and "Luck: . Sasha is here." in lin[0]


def test_text_inside_ejs_conditions_never_reaches_the_sheets_prompt(tmp_path, capsys):
    import json

    from studio.cli import main
    from studio.model import load_character

    card = {"spec": "chara_card_v2", "data": {
        "name": "Eve", "description": "Eve keeps bees.<% if (getvar('mood') > 2) { %> She is furious.<% } %> Calm."}}
    (tmp_path / "eve.json").write_text(json.dumps(card))
    assert main(["import", str(tmp_path / "eve.json"), "--dir", str(tmp_path)]) == 0
    sheet = load_character(tmp_path / "characters" / "eve.toml")
    assert "Eve keeps bees. Calm." in sheet.prompt and "furious" not in sheet.prompt
    assert "She is furious." in sheet.card.description  # kept in the card, as written


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from(list("{}:<>%d+-,/ ²0123456789abcrxhlomundi\x00\n")) | st.characters(),
                    max_size=120),
       when=st.one_of(st.none(), st.floats(allow_nan=False)),
       name=st.text(alphabet=st.sampled_from(list("{}:\x00 0Ann")), max_size=12))
def test_no_text_makes_the_macro_filler_fail(text, when, name):
    ctx = MacroContext(char=name, user=name[::-1], when=when, seed=1)
    words = ["{{roll:", "{{random::", "{{pick::", "}}", "{{char}}", "<% if (x) { %>", "<% } %>", "{{//"]
    for piece in (text, "".join(words[ord(c) % len(words)] if i % 3 == 0 else c for i, c in enumerate(text))):
        assert isinstance(resolve(piece, ctx), str)
        assert isinstance(unknown_macros(piece), list)
