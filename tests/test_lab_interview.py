"""The personality interview (Wang et al., 2024): the IPIP scales as shipped, the interview as a run, OC, d-OC and ER
on crafted replies, the assessor kept from the character's name, the radar chart, the development over a
play, and bad input refused with exit 2."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import ROOT, RecordingGateway, make_cast
from studio.cli import main
from studio.lab import interview as iv
from studio.lab import ipip
from studio.lab.kinds import Cell, Lines, Radar
from studio.lab.personality import DIMENSIONS
from studio.llm import scripted

MARA = ROOT / "characters" / "mara_lighthouse.toml"


def _sheet():
    from studio.model import load_character

    return load_character(MARA)


# -- the scales ---------------------------------------------------------------------------------------

def test_the_fifty_markers_hold_ten_items_a_dimension_keyed_as_published():
    items = ipip.items("ipip50")
    assert len(items) == 50 and len({i.text for i in items}) == 50
    assert Counter(i.dimension for i in items) == {d: 10 for d in DIMENSIONS}
    plus = Counter(i.dimension for i in items if i.keyed > 0)
    # Goldberg's key: E 5+, A 6+, C 6+, Emotional Stability 2+ (so neuroticism 8+), Intellect 7+
    assert plus == {"extraversion": 5, "agreeableness": 6, "conscientiousness": 6, "neuroticism": 8, "openness": 7}
    assert items[0].text == "Am the life of the party." and items[0].dimension == "extraversion"
    assert [i.dimension for i in items[:5]] == ["extraversion", "agreeableness", "conscientiousness",
                                                "neuroticism", "openness"]
    relaxed = next(i for i in items if i.text == "Am relaxed most of the time.")
    assert relaxed.dimension == "neuroticism" and relaxed.keyed == -1


def test_the_mini_ipip_holds_four_items_a_dimension_all_from_the_markers():
    items = ipip.items("mini")
    assert len(items) == 20 and Counter(i.dimension for i in items) == {d: 4 for d in DIMENSIONS}
    plus = Counter(i.dimension for i in items if i.keyed > 0)
    assert plus == {"extraversion": 2, "agreeableness": 2, "conscientiousness": 2, "neuroticism": 2, "openness": 1}
    markers = {(i.text, i.dimension, i.keyed) for i in ipip.items("ipip50")}
    assert all((i.text, i.dimension, i.keyed) in markers for i in items)
    assert "ipip.ori.org" in ipip.DATA.read_text(encoding="utf-8")


@pytest.mark.parametrize("item, clause", [
    ("Am the life of the party.", "you are the life of the party"),
    ("Don't like to draw attention to myself.", "you don't like to draw attention to yourself"),
    ("Often forget to put things back in their proper place.", "you often forget to put things back in their proper place"),
    ("Am not interested in other people's problems.", "you are not interested in other people's problems"),
])
def test_an_item_becomes_a_question_about_you(item, clause):
    assert ipip.clause(item) == clause
    asked = ipip.question(ipip.items("ipip50")[0], 0)
    assert asked.startswith("Would you say that you are the life of the party?")


# -- the interview is a run -----------------------------------------------------------------------------

async def test_the_interview_is_a_run_each_question_asked_in_a_context_of_its_own(store):
    gateway = RecordingGateway()
    cast = iv.interview_cast(_sheet(), "mini", model="scripted")
    run_id = await iv.interview(store, gateway, cast)
    events = store.take(run_id)
    asked = [e for e in events if e.kind == "stage" and e.role == "other"]
    assert len(asked) == 20 and all(e.origin == "rule" and e.character == iv.INTERVIEWER for e in asked)
    assert asked[3].text == ipip.question(ipip.items("mini")[3], 3)
    chosen = iv.answers(store, run_id, "mini")
    assert [a.index for a in chosen] == list(range(20)) and all(a.answer for a in chosen)
    speaks = [m for c, m in gateway.calls if c.task == "speak"]
    assert len(speaks) == 20
    second = "\n".join(m["content"] for m in speaks[1])
    assert asked[1].text in second and asked[0].text not in second   # no earlier question, no earlier answer
    assert chosen[0].answer not in second
    assert "very reserved and quiet" in second                       # the sheet's traits reach the character
    from studio.engine import Engine

    again = Engine(store, run_id, gateway)                           # the run opens like any other
    assert again.finished and again.cast.play.form == "interview"


async def test_a_sentence_given_for_one_item_is_no_repeat_in_another(store):
    """Each item stands alone: the guard reads an answer against its own item only, so a character who says
    the same thing of itself to every question keeps every answer, asked once each."""
    said = "I keep the lamp lit every night for the ships. My sister says I worry far too much."
    for _ in range(20):
        scripted.queue(said, task="speak", role="ego")
    gateway = RecordingGateway()
    run_id = await iv.interview(store, gateway, iv.interview_cast(_sheet(), "mini", model="scripted"))
    chosen = iv.answers(store, run_id, "mini")
    assert [a.answer for a in chosen] == [said] * 20 and all(a.usable for a in chosen)
    assert len([c for c, _ in gateway.calls if c.task == "speak"]) == 20      # never asked again, never warmer
    lines = [e for e in store.take(run_id) if e.kind == "stage" and e.role == "ego"]
    assert not [e.data.get("guard") for e in lines if e.data.get("guard")]
    assert "says nothing" not in " ".join(e.text for e in store.take(run_id))


async def test_what_one_question_unlocked_stays_with_that_item(store):
    """Mara's secret opens to the word "logbook": asked in the first item, it is in that answer's context and
    in no later item's, so what one question drew out cannot colour the answers to the others."""
    cast = iv.interview_cast(_sheet(), "mini", model="scripted")
    interviewer = cast.roles[1]
    first, *rest = interviewer.sheet.prompt.splitlines()[1:]
    interviewer.sheet = interviewer.sheet.model_copy(update={
        "prompt": "\n".join(["Ask these questions, one a turn:", "1. What is in the logbook you keep?", *rest])})
    gateway = RecordingGateway()
    run_id = await iv.interview(store, gateway, cast)
    assert any(e.kind == "mind.unlock" and e.turn == 1 for e in store.take(run_id))
    speaks = ["\n".join(m["content"] for m in messages) for c, messages in gateway.calls if c.task == "speak"]
    secret = "paid the harbour master"
    assert secret in speaks[0] and not [text for text in speaks[1:] if secret in text]


async def test_an_item_without_an_answer_is_invalid_counted_and_never_scored(store):
    """A reply that is only the interviewer's part, twice, leaves the character silent on that item: the item is
    counted as unanswered and no assessor ever reads it, rather than being scored as "says nothing"."""
    from studio.lab.interview_kind import KIND
    from test_lab_compare import run_spec

    from studio.engine.guard import ASKS

    for n in range(1, 21):
        if n == 3:  # the third item: the model speaks only for the interviewer, each time it is asked
            for said in ("And what else?", "Go on.", "Tell me more.")[:ASKS]:
                scripted.queue(f"{iv.INTERVIEWER}: {said}", task="speak", role="ego")
        else:
            scripted.queue(f"I mend nets for the harbour, item {n} of my life.", task="speak", role="ego")
    gateway = RecordingGateway()
    spec = KIND.check({"model": "scripted", "reps": 1, "interview": {"character": str(MARA), "methods": ["oc"]}},
                      "exp.toml")
    spec["name"] = "interview:silent"
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert failed == {}
    result = finished["rep/0"]
    assert result["unanswered"] == [2] and result["answers"] == 19
    oc = ["\n".join(m["content"] for m in messages) for c, messages in gateway.calls if c.task == "oc"]
    assert len(oc) == 19 and not [text for text in oc if "says nothing" in text]
    [silent] = [a for a in iv.answers(store, result["run"], "mini") if not a.usable]
    assert silent.index == 2 and "says nothing" in silent.answer
    assert any("1 of 20 items had no usable answer" in note for note in report.notes)


# -- the assessment on crafted replies ------------------------------------------------------------------

def _answers(text="I keep to myself; I am Mara and the lamp is my company."):
    return [iv.Answer(i, item, ipip.question(item, i), text) for i, item in enumerate(ipip.items("mini"))]


def _choice(n, reason="The answer shows it plainly."):
    return json.dumps({"reason": reason, "choice": n})


async def test_oc_turns_reversed_items_round_and_an_item_invalid_twice_is_left_out():
    chosen = _answers()
    scripted.queue('{"reason": "5", "choice": 9}', task="oc")          # item 1: not words, out of range...
    scripted.queue("I cannot say.", task="oc")                         # ...and asked again: still nothing
    for a in chosen[1:]:
        scripted.queue(f"Sure: {_choice(4 if a.item.keyed > 0 else 2)}", task="oc")
    gateway = RecordingGateway()
    result = await iv.assess(chosen, ["oc"], gateway=gateway, model="scripted", names=["Mara"])
    assert result["measured"]["oc"] == {d: 4.0 for d in DIMENSIONS}   # agree with +, disagree with -: all 4
    assert result["invalid"]["oc"] == 1
    retry = gateway.calls[1][1]
    assert "could not be used" in retry[-1]["content"] and "choice" in retry[-1]["content"]
    assert len(gateway.calls) == 21


async def test_d_oc_places_each_answer_on_the_dimension_without_reversing():
    chosen = _answers()
    placements = {"extraversion": [1, 1, 2, 2], "agreeableness": [4, 4, 4, 4], "conscientiousness": [5, 5, 4, 4],
                  "openness": [2, 2, 3, 1]}
    for d in DIMENSIONS:                             # asked a dimension at a time, its answers in scale order
        for n in placements.get(d, [None] * 4):
            if n is None:                            # neuroticism: every placement invalid twice, so unmeasured
                scripted.queue('{"reason": "x", "choice": 3}', task="doc")
                scripted.queue('{"reason": "Calm enough.", "choice": 0}', task="doc")
            else:
                scripted.queue(_choice(n, "The answer shows where she stands."), task="doc")
    gateway = RecordingGateway()
    result = await iv.assess(chosen, ["doc"], gateway=gateway, model="scripted", names=["Mara"])
    # reversed items ("Don't talk a lot.") are not turned round: the option already names the trait's level
    assert result["measured"]["doc"] == {"openness": 2.0, "conscientiousness": 4.5, "extraversion": 1.5,
                                         "agreeableness": 4.0, "neuroticism": None}
    assert result["invalid"]["doc"] == 4
    extraversion = gateway.calls[8][1][-1]["content"]   # after openness' four and conscientiousness' four
    assert "clearly introverted" in extraversion and "clearly extraverted" in extraversion
    assert extraversion.count("They answered") == 1 and "life of the party" in extraversion


async def test_expert_rating_all_at_once_and_in_batches_of_three_or_four():
    chosen = [iv.Answer(i, item, ipip.question(item, i), f"Answer number {i}.")
              for i, item in enumerate(ipip.items("ipip50"))]                # ten answers a dimension
    for n, d in enumerate(DIMENSIONS):                                   # ER (all): one call a dimension
        scripted.queue(json.dumps({"analysis": f"Reads as level {n + 1} on {d}.", "result": n + 1}), task="er")
    for _ in DIMENSIONS:                                                 # ER (batch): 3, 4 and 3 answers
        scripted.queue(json.dumps({"reason": "Keeps to the lamp and herself.", "score": 2}), task="er")
        scripted.queue(json.dumps({"reason": "Warms up when asked about the sea.", "score": "5/5"}), task="er")
        scripted.queue(json.dumps({"reason": "Plain, steady answers.", "score": 2}), task="er")
    gateway = RecordingGateway()
    result = await iv.assess(chosen, ["er_all", "er_batch"], gateway=gateway, model="scripted", names=["Mara"])
    assert result["measured"]["er_all"] == {d: float(n + 1) for n, d in enumerate(DIMENSIONS)}
    assert result["measured"]["er_batch"] == {d: 3.0 for d in DIMENSIONS}
    sizes = [m[-1]["content"].count("The participant:") for _, m in gateway.calls[5:8]]
    assert sizes == [3, 4, 3]
    assert gateway.calls[0][1][-1]["content"].count("The participant:") == 10
    assert result["invalid"] == {"er_all": 0, "er_batch": 0}


@pytest.mark.parametrize("count, sizes", [(0, []), (4, [4]), (5, [5]), (6, [3, 3]), (9, [3, 3, 3]), (10, [3, 4, 3]),
                                          (12, [4, 4, 4]), (13, [3, 3, 4, 3]), (15, [4, 4, 4, 3])])
def test_batches_hold_three_or_four_answers_as_the_papers_rule(count, sizes):
    """Below six answers one batch; above, fours with a short last batch topped up to three from the first ones."""
    chosen = _answers()[:1] * count
    got = iv.batches(chosen)
    assert [len(b) for b in got] == sizes
    assert sum(len(b) for b in got) == count


async def test_the_assessor_is_never_told_the_characters_name():
    chosen = _answers("Mara here. I am Mara, MARA of the north light, and I like my own company.")
    gateway = RecordingGateway()
    await iv.assess(chosen, list(iv.METHODS), gateway=gateway, model="scripted", names=["Mara", "Mara"])
    assessor = [m for c, m in gateway.calls if c.character == "assessor"]
    assert len(assessor) >= 40
    for messages in assessor:
        text = "\n".join(m["content"] for m in messages)
        assert "mara" not in text.lower()
    assert "the participant of the north light" in "\n".join(m["content"] for m in assessor[0])


# -- the report and the radar ---------------------------------------------------------------------------

def test_the_report_compares_the_measured_profile_with_the_target_by_the_papers_rule_and_the_strict_one():
    from studio.lab.interview_kind import profile_report

    design = iv.designed(_sheet())
    assert design == {"openness": 2.0, "conscientiousness": 5.0, "extraversion": 1.0, "agreeableness": 3.0,
                      "neuroticism": 4.0}
    near = {"openness": 2.0, "conscientiousness": 4.0, "extraversion": 2.0, "agreeableness": 4.0, "neuroticism": 4.0}
    far = {"openness": 4.0, "conscientiousness": 2.0, "extraversion": 4.0, "agreeableness": 3.0, "neuroticism": None}
    results = [{"run": 1, "measured": {"er_all": near}, "invalid": {"er_all": 0}},
               {"run": 2, "measured": {"er_all": far}, "invalid": {"er_all": 1}}]
    report = profile_report({"Mara": design}, ["er_all"], results, title="t")
    profiles, agreement = report.tables
    openness, neuroticism = profiles.rows[0], profiles.rows[4]
    assert openness[:2] == ["openness", Cell(2.0, digits=1)] and openness[2].value == 3.0 and openness[2].n == 2
    assert (openness[2].low, openness[2].high) == (1.0, 5.0)                # two values: a t interval past both ends, cut
    assert neuroticism[2].value == 4.0 and neuroticism[2].n == 1             # one repetition measured nothing
    row = agreement.rows[0]
    # The paper's rule leaves agreeableness (a target of 3, marginal) out: near hits O C E N, far misses O C E.
    assert (row[1].value, row[1].n) == (pytest.approx(400 / 7), 1)            # n: the one character
    assert 0 <= row[1].low < row[1].value < row[1].high <= 100               # Wilson: inside 0-100 by construction
    assert (row[2].value, row[2].n) == (100.0, 1)                           # far has N unmeasured: no full verdict
    assert row[3].value == pytest.approx((2 / 4 / 4 + 8 / 3 / 4) / 2 * 100)  # MAE over the scored dimensions
    assert row[3].low == 0.0 and row[3].high <= 100.0                        # an MAE cannot be below 0
    # The strict rule keeps agreeableness: near's 4 misses a designed 3, far's 3 hits it.
    assert (row[4].value, row[4].n) == (pytest.approx(100 * 5 / 9), 1)                # near 4 of 5, far 1 of 4
    assert (row[5].value, row[5].n) == (0.0, 1)                              # near misses in full by the strict rule
    assert [c.n for c in row[6:11]] == [1, 1, 1, 0, 1] and row[11] == 1     # n: the characters
    baseline = agreement.rows[-1]                                      # knowing nothing: all at the midpoint
    # By the paper's rule a measured 3 reads as low, so knowing nothing already hits the two low targets (O, E).
    assert baseline[0] == "baseline: all 3" and baseline[1].value == 50.0 and baseline[4].value == 20.0
    radar = report.figures[0]
    assert radar.series["target"] == [2.0, 5.0, 1.0, 3.0, 4.0] and radar.series["ER (all)"][0] == 3.0


def test_a_marginal_target_is_left_out_by_the_papers_rule_only():
    from studio.lab.personality import accuracy, accuracy_paper, marginal

    assert [marginal(x) for x in (2.5, 2.6, 3.0, 3.4, 3.5)] == [False, True, True, True, False]
    target = {"openness": 3.0, "conscientiousness": 4.5, "extraversion": 1.0, "agreeableness": 4.0, "neuroticism": 2.0}
    measured = {"openness": 4.0, "conscientiousness": 4.0, "extraversion": 3.0, "agreeableness": 5.0, "neuroticism": 1.0}
    paper = accuracy_paper(target, measured)
    assert paper["openness"] is None and paper["extraversion"] is True   # a measured 3 is low, not a miss
    assert paper["full"] is True
    assert accuracy(target, measured)["full"] is False


def test_the_terminal_radar_is_plain_text_pairing_design_and_measure():
    from studio.lab.radar import terminal

    radar = Radar("r", "Mara: designed vs measured", list(DIMENSIONS),
                  {"designed": [2.0, 5.0, 1.0, 3.0, 4.0], "ER (all)": [3.0, 4.0, 1.0, None, 5.0]})
    text = terminal(radar, width=50)
    lines = text.splitlines()
    assert "\x1b" not in text and all(len(line) <= 50 for line in lines)
    block = lines[lines.index("conscientiousness") + 1: lines.index("conscientiousness") + 3]
    assert block[0].rstrip().endswith("5.00") and block[1].rstrip().endswith("4.00")
    assert block[0].count("█") > block[1].count("▓") > 0             # the longer bar is the higher score
    agreeable = lines[lines.index("agreeableness") + 2]
    assert agreeable.rstrip().endswith("-")                            # not measured is a gap, not a zero


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<svg")])
def test_the_radar_and_the_lines_are_saved_as_png_or_svg(tmp_path, suffix, magic):
    from studio.lab.plots import save as save_figure
    from studio.lab.radar import save

    radar = Radar("r", "t", list(DIMENSIONS), {"designed": [2, 5, 1, 3, 4], "OC": [3, None, 2, 3, 3]})
    out = save(radar, tmp_path / f"radar{suffix}")
    assert magic in out.read_bytes()[:400]
    lines = Lines("l", "t", ["scene 1", "scene 2"], {d: [3.0, None] for d in DIMENSIONS})
    assert magic in save_figure(lines, tmp_path / f"lines{suffix}").read_bytes()[:400]
    from studio.model import InputError

    with pytest.raises(InputError, match="PNG or SVG"):
        save(radar, tmp_path / "radar.jpg")


# -- development over a play ----------------------------------------------------------------------------

async def test_the_protagonist_is_interviewed_after_each_scene_from_what_it_had_witnessed(store):
    from studio.engine import Engine
    from studio.lab.development import development_report, develop

    gateway = RecordingGateway()
    engine = Engine.create(store, make_cast("interview.toml", turns=1, scenes=2, epilogue=False, superego=False),
                           gateway=gateway)
    await engine.play_to_end()
    path = store.take(engine.run_id)
    scene_two = [e.text for e in path if e.kind == "stage" and e.scene == 2]
    for _ in range(2 * len(DIMENSIONS)):  # two scenes, a rating a dimension
        scripted.queue(json.dumps({"reason": "Guarded, but she answers.", "score": 2}), task="er")
    found = await develop(store, engine.run_id, name=None, scale="mini", methods=["er_all"], model="scripted",
                          gateway=gateway)
    assert [p["scene"] for p in found["scenes"]] == [1, 2] and found["character"] == "Jenny"
    first = store.run(found["scenes"][0]["run"])
    assert "after scene 1" in first.title
    after_one = [m for c, m in gateway.calls if c.task == "speak" and c.character == "Jenny"][-40:-20]
    shown = "\n".join(m["content"] for messages in after_one for m in messages)
    assert all(line[:40] not in shown for line in scene_two)           # nothing from after the scene
    assert [e.text for e in path if e.kind == "stage" and e.scene == 1][0][:40] in shown
    report = development_report(found)
    lines = report.figures[0]
    assert lines.steps == ["scene 1", "scene 2"] and lines.series["openness"] == [2.0, 2.0]
    from studio.lab.radar import lines_terminal

    drawn = lines_terminal(lines).splitlines()
    assert drawn[1].split() == ["scene", "1", "scene", "2"] and drawn[2].split()[:3] == ["openness", "2.00", "2.00"]
    calls = len(gateway.calls)
    again = await develop(store, engine.run_id, name=None, scale="mini", methods=["er_all"], model="scripted",
                          gateway=gateway)
    assert len(gateway.calls) == calls and len(again["scenes"]) == 2   # a rerun does only what is missing


# -- the command line -----------------------------------------------------------------------------------

def test_the_command_runs_an_interview_and_a_rerun_plays_nothing_new(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    for _ in DIMENSIONS:
        scripted.queue(json.dumps({"reason": "Quiet and exact in what she says.", "score": 3}), task="er")
    out_file = tmp_path / "mara.svg"
    args = ["lab", "interview", str(MARA), "--model", "scripted", "--method", "er_all", "--json", "--db", db,
            "--out", str(out_file)]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["methods"] == ["er_all"] and out["failed"] == {}
    [trial] = out["trials"].values()
    assert trial["answers"] == 20 and trial["measured"]["er_all"]["openness"] == 3.0
    assert out["radar"]["series"]["target"] == [2.0, 5.0, 1.0, 3.0, 4.0]
    assert out_file.read_bytes().lstrip().startswith((b"<?xml", b"<svg"))
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["trials"] == out["trials"]


@pytest.mark.parametrize("args, says", [
    (["lab", "interview", "nobody_at_all", "--model", "scripted"], "no character file"),
    (["lab", "interview", str(ROOT / "characters" / "jenny.toml"), "--model", "scripted"], "traits"),
    (["lab", "interview", str(MARA), "--reps", "0", "--model", "scripted"], "--reps"),
    (["lab", "interview", str(MARA), "--out", "mara.jpg", "--model", "scripted"], "PNG or SVG"),
    (["lab", "interview", "--run", "999", "--model", "scripted"], "--run"),
    (["lab", "interview", str(MARA), "--as", "Jenny", "--model", "scripted"], "--as"),
    (["lab", "interview", "--model", "scripted"], "CHARACTER"),
])
def test_bad_input_is_one_clear_message_and_exit_2(tmp_path, capsys, args, says):
    assert main(args + ["--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


async def test_an_interview_cut_off_is_continued_not_begun_again(store):
    from studio.lab.interview_kind import KIND
    from test_lab_compare import run_spec

    class DropsOnce(RecordingGateway):
        dropped = False

        async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
            if ctx.task == "speak" and ctx.turn == 5 and not self.dropped:
                self.dropped = True
                raise RuntimeError("the model's server went away")
            return await super().complete(settings, messages, ctx, on_token, on_retry)

    spec = KIND.check({"model": "scripted", "reps": 1,
                       "interview": {"character": str(MARA), "methods": ["er_all"]}}, "test.toml")
    spec["name"] = "interview:test"
    gateway = DropsOnce()
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert finished == {} and "went away" in failed["rep/0"]
    [run] = store.runs()
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert failed == {} and finished["rep/0"]["run"] == run.id and len(store.runs()) == 1
    assert finished["rep/0"]["answers"] == 20
    asked = [c.turn for c, _ in gateway.calls if c.task == "speak"]
    assert asked == list(range(1, 21))           # the dropped call is not recorded; turns 1-4 were not asked again


# -- the paper's protocol end to end ------------------------------------------------------------------------

IMPLIED = ROOT / "experiments" / "interview_implied.toml"
WREN = ROOT / "characters" / "wren_cartographer.toml"


def _implied(tmp_path, model='"scripted"', scale="mini", characters=None, extra=""):
    """The shipped experiment at a test's size: two characters, one repetition, the short scale."""
    chars = characters or [str(WREN), str(ROOT / "characters" / "tobias_baker.toml")]
    path = tmp_path / "implied.toml"
    path.write_text(f'kind = "interview"\nmodel = {model}\nreps = 1\nconcurrency = 2\n{extra}\n[interview]\n'
                    f'characters = {json.dumps(chars)}\nlabels = "{ROOT / "experiments" / "labels" / "big_five.toml"}"\n'
                    f'scale = "{scale}"\nmethods = ["doc", "er_batch"]\nconditions = ["interview", "sr", "sr_cot"]\n',
                    encoding="utf-8")
    return path


def test_the_shipped_sheets_imply_their_labels_without_naming_a_trait():
    """The target must come from outside the prompt: the label file's sheets set no traits and name none."""
    from studio.lab.interview_kind import read_labels
    from studio.model import load_character
    from studio.model.inner_life import _TRAIT_WORDS

    labels = read_labels(ROOT / "experiments" / "labels" / "big_five.toml", "t")
    assert set(labels) == {"wren", "tobias", "iva", "lorcan"}
    for stem in ("wren_cartographer", "tobias_baker", "iva_surgeon", "lorcan_busker"):
        sheet = load_character(ROOT / "characters" / f"{stem}.toml")
        assert sheet.traits is None and sheet.name.casefold() in labels
        words = {w for pair in _TRAIT_WORDS.values() for phrase in pair for w in phrase.split() if len(w) > 5}
        words |= {"openness", "conscientious", "extraver", "agreeable", "neurotic", "introvert"}
        assert not [w for w in words if w in sheet.prompt.casefold()], stem


async def test_the_target_never_reaches_the_characters_prompt_unless_asked(store):
    from studio.lab.interview_kind import KIND
    from test_lab_compare import run_spec

    for target, shown in (("hidden", False), ("sheet", True)):
        gateway = RecordingGateway()
        spec = KIND.check({"model": "scripted", "reps": 1, "interview": {"character": str(MARA), "methods": ["er_all"],
                                                                         "target": target}}, "test.toml")
        spec["name"] = f"interview:{target}"
        report, finished, failed = await run_spec(store, spec, gateway=gateway)
        assert failed == {}
        prompts = "\n".join(m["content"] for c, msgs in gateway.calls if c.task == "speak" for m in msgs)
        assert ("very reserved and quiet" in prompts) is shown
        assert ("repeats its prompt" in report.protocol[0]) is shown     # the card says what the target measures


async def test_self_reports_read_the_characters_own_choice_and_ask_the_assessor_only_when_unclear():
    chosen = _answers()[:4]
    replies = ["4", "I'd say 2, maybe 3.", "Hard to say. 1 feels wrong; 5 too.\nChoice: 5", "Leave me be."]
    chosen = [iv.Answer(a.index, a.item, a.question, r) for a, r in zip(chosen, replies)]
    scripted.queue(_choice(2), task="extract")                          # the second reply: two numbers
    scripted.queue("no idea", task="extract")                           # the fourth: nothing, twice
    scripted.queue("none", task="extract")
    gateway = RecordingGateway()
    result = await iv.self_report(chosen, "sr_cot", gateway=gateway, model="scripted", names=["Mara"])
    picks = {a.item.dimension: (a.item.keyed, a.answer) for a in chosen}
    assert result["read_by_assessor"] == 2 and result["invalid"] == {"sr_cot": 1}
    measured = result["measured"]["sr_cot"]
    expected = {}
    for a, pick in zip(chosen, (4, 2, 5, 3)):                              # the unread one is neutral, 3
        expected[a.item.dimension] = float(pick if a.item.keyed > 0 else 6 - pick)
    assert {d: v for d, v in measured.items() if v is not None} == expected and picks
    assert len(gateway.calls) == 3


def test_the_papers_protocol_runs_end_to_end_and_reports_table_2_beside_the_studios(tmp_path, capsys):
    import pandas

    path = _implied(tmp_path)
    db = str(tmp_path / "s.db")
    assert main(["lab", "run", str(path), "--json", "--db", db]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["done"] == 6 and out["failed"] == {}                     # 2 characters x 3 conditions x 1 rep
    assert main(["lab", "report", str(path), "--paper", "--db", db]) == 0
    shown = capsys.readouterr().out
    # the scripted model's figures are no reproduction, and the report says so before any of them
    assert "Wang et al., 2024" in shown and "76.6" in shown and "Reproduction of" not in shown
    assert -1 < " ".join(shown.split()).index("This is not a reproduction: the figures come from the scripted") \
        < shown.index("76.6")
    assert "label file the characters never see" in shown and "Protocol" in shown
    assert main(["lab", "report", str(path), "--format", "json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    figures = pandas.json_normalize(data["paper"]["figures"])
    er = figures[figures["label"] == "ER (batch): Acc Dim (%)"].iloc[0]
    assert er["paper.value"] == 76.6 and 0 <= er["studio.value"] <= 100
    assert figures[figures["label"] == "SR: MAE (%)"].iloc[0]["studio.n"] == 2   # two characters' self-reports
    assert any("Differs" in line for line in data["protocol"])
    assert data["paper"]["reproduction"] is False and "scripted" in data["paper"]["not_a_reproduction"]


def test_the_papers_protocol_runs_against_an_openai_compatible_server(tmp_path, capsys):
    from stub_server import Reply, StubServer

    def reply(body):
        asked = body["messages"][-1]["content"]
        if "Reply as JSON" in asked:
            return Reply(json.dumps({"reason": "Keeps to herself and her maps.", "score": 2, "choice": 2}))
        if "Choice: N" in asked:
            return Reply("I keep my own company.\nChoice: 2")
        if "number of your choice" in asked:
            return Reply("2")
        return Reply("I walk the coast alone for weeks; I like it that way.")

    with StubServer(default=reply, max_requests=400, lifetime=120) as server:
        path = _implied(tmp_path, model='"openai/stub"', characters=[str(WREN)], extra=f'endpoints = ["{server.url}"]\nsmall = false')
        assert main(["lab", "run", str(path), "--json", "--db", str(tmp_path / "s.db")]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["done"] == 3 and out["failed"] == {}
        assert len(server.requests) >= 3 * 20
    agreement = next(t for t in out["tables"] if t["title"].startswith("Agreement"))
    rows = {row[0]: dict(zip(agreement["columns"], row)) for row in agreement["rows"]}
    # The rater reads every dimension as 2, low: right for Wren's four low labels, wrong for her openness (5).
    assert rows["ER (batch)"]["Acc dim"] == 80.0 and rows["ER (batch)"]["Acc dim_n"] == 1      # one character
    # She self-reports 2 on every item, so keyed items read low and reversed ones high: the scale's key at work.
    assert rows["SR"]["Acc dim_n"] == 1 and rows["SR"]["invalid replies"] == 0


# -- a researcher's own prompt texts --------------------------------------------------------------------------

async def test_an_experiment_runs_with_the_researchers_own_prompt_texts(store, tmp_path):
    from studio.lab.interview_kind import KIND
    from test_lab_compare import run_spec

    own = tmp_path / "appendix.toml"
    own.write_text('question = "Tell me whether {statement} holds for you."\n'
                   'self_report = "Statement: {statement} Options: {options}. One number."\n'
                   'assessor = "You rate interviews."\n'
                   'er = "Dimension {dimension}. Answers:\\n{answers}\\nScore it."\n', encoding="utf-8")
    gateway = RecordingGateway()
    spec = KIND.check({"model": "scripted", "reps": 1, "interview": {
        "character": str(MARA), "methods": ["er_all"], "conditions": ["interview", "sr"],
        "prompts": own.name}}, str(tmp_path / "exp.toml"))
    spec["name"] = "interview:own"
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert failed == {}
    asked = [e.text for e in store.take(finished["rep/0"]["run"]) if e.kind == "stage" and e.role == "other"]
    assert asked[0] == "Tell me whether I am the life of the party. holds for you."
    sr = [e.text for e in store.take(finished["sr/rep/0"]["run"]) if e.kind == "stage" and e.role == "other"]
    assert sr[0].startswith("Statement: I am the life of the party. Options: 1 = strongly disagree")
    er = [m for c, m in gateway.calls if c.task == "er"]
    assert er[0][0]["content"] == "You rate interviews."
    assert er[0][1]["content"].startswith("Dimension openness. Answers:") and '"score"' in er[0][1]["content"]
    assert any("own texts from" in line and "question, self_report, assessor, er" in line for line in report.protocol)


@pytest.mark.parametrize("text, says", [
    ('nonsense = "x"\n', "is not a prompt this experiment uses"),
    ('er = "Rate {participant}."\n', "{participant}"),
    ('oc = "Agree with {statement!r}?"\n', "plain placeholder"),
    ('er = 3\n', "must be a text"),
])
def test_a_bad_prompt_file_is_one_clear_message_naming_the_prompt(tmp_path, capsys, text, says):
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    exp = tmp_path / "exp.toml"
    exp.write_text(f'kind = "interview"\nmodel = "scripted"\n[interview]\ncharacter = "{MARA}"\nprompts = "mine.toml"\n',
                   encoding="utf-8")
    assert main(["lab", "run", str(exp), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "mine.toml" in err and says in err and "Traceback" not in err
