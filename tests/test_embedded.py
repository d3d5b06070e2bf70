"""One short scene on the real embedded model (SmolLM2-135M through llama-cpp-python), end to end."""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import PLAYS
from studio.engine.forms.drama import QUESTION
from studio.llm.line_shape import simple_shape
from test_cli import studio_process as studio
from test_cli import workdir  # noqa: F401  (a fixture)

pytestmark = pytest.mark.embedded


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_a_short_scene_on_the_embedded_model(tmp_path):
    db = tmp_path / "embedded.db"
    result = studio("run", PLAYS / "interview.toml", "--turns", "2", db=db)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SASHA" in result.stdout and "JENNY" in result.stdout
    # the one line under the header that says what this model is and where to find a better one
    assert "tiny offline model" in result.stdout and "'studio models'" in result.stdout
    events = [json.loads(x) for x in studio("show", "1", "--json", "--backstage", db=db).stdout.splitlines()]
    spoken = [e for e in events if e["origin"] == "model"]
    # two turns with every strategy: other, rewrite, draft, critique, revise, twice; then the epilogue
    assert len(spoken) == 11
    assert all(e["model"] == "local/smollm2" for e in spoken)
    assert all(e["usage"]["completion_tokens"] > 0 and e["usage"]["prompt_tokens"] > 0 for e in spoken)
    assert not any("(scripted)" in e["text"] for e in events)
    assert events[-1]["kind"] == "epilogue" and events[-1]["text"].strip()


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
async def test_the_embedded_models_lines_are_its_own_short_and_unrepeated(engine_for):
    from studio.engine.lines import MIN_ECHO_WORDS, sentence_keys

    engine = engine_for(turns=3, epilogue=False, model="local/smollm2")
    await engine.play_to_end()
    names = [r.name.lower() for r in engine.cast.roles]
    stage = [e for e in engine.path if e.kind == "stage"]
    assert len(stage) == 6 and all(e.text.strip() for e in stage)
    said: set[tuple[str, ...]] = set()
    for line in stage:
        for row in line.text.splitlines():
            assert not any(row.strip().lower().startswith(f"{n}:") for n in names), line.text
        assert len(line.text.split()) <= 64, line.text
        keys = [k for k in sentence_keys(line.text) if len(k) >= MIN_ECHO_WORDS]
        assert not said & set(keys) and len(set(keys)) == len(keys), line.text
        said |= set(keys)
    calls = [e for e in engine.path if e.usage]
    assert all(e.settings["temperature"] < 1.0 and e.settings["repeat_penalty"] > 1.0 for e in calls)
    # the system prompt and the older history of a role are not evaluated again on its next call
    later = [e.usage["cached_tokens"] / e.usage["prompt_tokens"] for e in calls if e.turn and e.turn > 1]
    assert later and max(later) > 0.5, later


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_embedded_model_answers_a_dilemma_with_moves_held_to_the_schema(tmp_path):
    # Asked in words alone, the tiny model answered almost every round in prose: 41 of 42 trials failed.
    db = tmp_path / "lab.db"
    result = studio("lab", "pd", "--model", "local/smollm2", "--reps", "1", "--group", "control",
                    "--partner", "tit_for_tat_c", "--json", db=db)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["failed"] == {}, data["failed"]
    [cell] = data["cells"]
    assert data["trials"] == 1 and cell["cooperation"]["n"] == 1 and 0.0 <= cell["cooperation"]["mean"] <= 1.0


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
async def test_a_held_critique_on_the_embedded_model_has_scores_in_range_and_words():
    import asyncio

    from studio.critic import Verdict
    from studio.llm import CallContext, CallSettings, Gateway

    from studio.structured import reply_schema

    settings = CallSettings(model="local/smollm2", temperature=0.2, max_tokens=400, repeat_penalty=1.3,
                            schema=reply_schema(Verdict, 120))
    messages = [{"role": "user", "content": "Rate this scene from 0 to 10 on four criteria, in JSON: "
                 "Ann: I lied to you. Ben: I know. I forgave you years ago."}]
    reply = await asyncio.wait_for(Gateway().complete(settings, messages, CallContext("critic", "critic", "Critic")), 120)
    verdict = json.loads(reply.text, strict=False)  # the grammar keeps it one JSON object, whole
    for key in ("behavioural_change", "introspection", "narrative_divergence", "successful_adaptation"):
        assert verdict[key]["score"] in range(11)
        assert isinstance(verdict[key]["interpretation"], str)


async def test_a_reflection_with_a_long_free_text_field_does_not_crash_the_embedded_model():
    """A reflection's thoughts may run to 2,000 characters; llama.cpp's grammar spelled that bound out and
    crashed the process (exit 139, found running plays/keepers_log.toml). It is asked here in-process:
    a crash would take the test run down with it."""
    import asyncio

    from studio.llm import CallContext, CallSettings, Gateway
    from studio.mind.reflection import ReflectionReply
    from studio.structured import reply_schema

    schema = reply_schema(ReflectionReply)
    assert '"maxLength":2000' in schema.replace(" ", "")  # the bound that crashed it
    settings = CallSettings(model="local/smollm2", temperature=0.2, max_tokens=60, schema=schema)
    messages = [{"role": "user", "content": "Reflect on the scene in JSON: your thoughts, impressions, goals."}]
    reply = await asyncio.wait_for(Gateway().complete(settings, messages, CallContext("ego", "reflect", "Mara")), 120)
    assert reply.text.lstrip().startswith("{")  # held to the grammar, and the process is still here


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_embedded_model_completes_the_reply_it_is_handed():
    from studio.llm.local import load

    model = load()
    messages = [{"role": "user", "content": "Say one line about the kettle."}]
    plain, _ = model.prompt(messages)
    handed, _ = model.prompt(messages, "The kettle has been cold since")
    # the same prompt, with the reply already begun after the template's opening of it
    assert handed[: len(plain) - 1] == plain[: len(plain) - 1] and len(handed) > len(plain)
    assert model.llama.detokenize(handed[len(plain):]).decode().strip().endswith("cold since")


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
async def test_a_line_on_the_embedded_model_is_continued_from_its_last_word(engine_for):
    engine = engine_for(turns=3, epilogue=False, model="local/smollm2")
    await engine.play_turn()
    line = engine.stage()[-1]
    new = await engine.continue_line(line.id)
    assert new.text.startswith(line.text) and len(new.text) > len(line.text)
    assert new.data["continues"] == line.id and new.settings["model"] == "local/smollm2"


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_seed_decides_the_embedded_models_scene(tmp_path, workdir):
    """`studio run --seed N` twice writes the same lines; another seed, other lines; each call keeps its seed."""
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace("epilogue = true", "epilogue = false"))

    def scene(seed: int, name: str) -> list[str]:
        db = tmp_path / f"{name}.db"
        result = studio("run", play, "--turns", "1", "--no-superego", "--seed", seed, db=db)
        assert result.returncode == 0, result.stdout + result.stderr
        events = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
        calls = [e for e in events if e["origin"] == "model"]
        assert calls and all(isinstance(e["settings"].get("seed"), int) for e in calls)
        asked = [e["text"] for e in events if e["kind"] == "stage" and e["character"] == "Sasha"]
        assert asked and all(text.endswith("?") for text in asked)  # the interviewer's grammar
        assert all(simple_shape(QUESTION).body(text) is not None for text in asked)  # opened as a question
        return [e["text"] for e in events if e["kind"] == "stage"]

    first = scene(3, "first")
    assert scene(3, "again") == first
    assert scene(4, "other") != first


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_readme_shows_the_scene_its_command_writes(tmp_path):
    import re

    from conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    command = re.search(r"\(`(studio run [^`]+)`; verbatim", readme.replace("\n", " "))
    assert command, "the README names the command its scene comes from"
    shown = re.search(r"another seed, another:\n\n```\n(.*?)```", readme, re.S)
    assert shown, "the README shows a scene"
    result = studio(*command.group(1).split()[1:], db=tmp_path / "readme.db")
    assert result.returncode == 0, result.stdout + result.stderr
    # the notices of waiting for a busy machine's model are left out of the README, as it says
    written = [line for line in result.stdout.splitlines() if not line.strip().startswith("(waiting for")]
    assert written == shown.group(1).splitlines()


def _two_calls(model):
    """The prompts of two calls in a row of one scene: the second holds the first's tokens, then more."""
    from studio.llm.local import common_prefix

    chat = [{"role": "system", "content": "You are Jenny, a retired engineer, interviewed about her life."},
            {"role": "user", "content": "How did you start?"}]
    then, _ = model.prompt([*chat, {"role": "assistant", "content": "In a garage, with my father."},
                            {"role": "user", "content": "What did he teach you?"}])
    first, _ = model.prompt(chat)
    return then[: common_prefix(first, then)], then


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_prefix_cache_changes_no_score_and_no_greedy_token_on_the_real_model():
    """The cache writes into llama.cpp's private state; a new llama-cpp-python that lays it out otherwise
    shows here, as scores that moved, not as a scene that reads differently for no reason one can name."""
    from studio.llm.local import CACHE_TOLERANCE, check_cache, load

    model = load()
    first, then = _two_calls(model)
    check = check_cache(model, first, then)
    assert check.reused == len(first) > 10, check.reused
    assert check.drift <= CACHE_TOLERANCE, f"the cache moved a next-token score by {check.drift}"
    assert check.fresh == check.cached, (model.llama.detokenize(check.fresh), model.llama.detokenize(check.cached))
    assert check.holds


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_cache_check_catches_a_state_that_was_not_restored(monkeypatch):
    """A restore that says it worked but left llama.cpp's state as it was: the check must see it."""
    import studio.llm.local as local

    class Unrestored:
        def __getattr__(self, name):
            import llama_cpp

            return getattr(llama_cpp, name)

        @staticmethod
        def llama_state_set_data(ctx, buffer, size):
            return size  # claims the state was set, sets nothing

    model = local.load()
    first, then = _two_calls(model)
    monkeypatch.setattr(local, "llama_cpp", lambda: Unrestored())
    check = local.check_cache(model, first, then)
    assert check.drift > local.CACHE_TOLERANCE and not check.holds
