"""The model gateway as the rest of the studio (and the person at the keyboard) sees it.

Everything runs offline: the scripted voice travels the real litellm path,
and its error cues make litellm raise the exceptions a hosted provider would.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from studio.llm import (
    BUILTIN_MODELS,
    CallContext,
    CallSettings,
    Completion,
    Gateway,
    ModelError,
    check_model,
)
from studio.llm import scripted

ROOT = Path(__file__).resolve().parents[1]
MESSAGES = [
    {"role": "system", "content": "You are Sasha, who has come back for a letter."},
    {"role": "user", "content": "Cleo: You took your time."},
]


@pytest.fixture(autouse=True)
def no_leftover_cues():
    scripted.reset()
    yield
    scripted.reset()


@pytest.fixture
def gateway() -> Gateway:
    return Gateway(backoff=0.001)


def settings(**overrides) -> CallSettings:
    return CallSettings(**{"model": "scripted", "temperature": 0.7, "max_tokens": 200, **overrides})


def ctx(role="ego", task="speak", character="Sasha", scene=1, turn=3) -> CallContext:
    return CallContext(role=role, task=task, character=character, scene=scene, turn=turn)


async def say(gateway: Gateway, context: CallContext | None = None, messages=MESSAGES, **overrides) -> Completion:
    return await gateway.complete(settings(**overrides), messages, context or ctx())


# --------------------------------------------------------------------------- the scripted voice


async def test_scripted_streams_word_by_word_and_the_words_add_up(gateway):
    tokens: list[str] = []
    done = await gateway.complete(settings(), MESSAGES, ctx(), on_token=tokens.append)
    assert len(tokens) > 3
    assert "".join(tokens) == done.text
    assert done.model == "scripted" and done.attempts == 1 and done.seconds >= 0


async def test_scripted_lines_say_who_spoke_when_and_that_they_are_scripted(gateway):
    line = (await say(gateway, ctx(role="ego", character="Sasha", scene=1, turn=3))).text
    assert line.startswith("(scripted)")
    assert "Sasha" in line and "scene 1" in line and "turn 3" in line

    lines = {
        (role, turn): (await say(gateway, ctx(role=role, turn=turn))).text
        for role in ("ego", "superego", "other")
        for turn in (1, 2, 3)
    }
    assert len(set(lines.values())) == len(lines)
    assert all(text.startswith("(scripted)") for text in lines.values())


async def test_scripted_is_the_same_on_every_run(gateway):
    first = await say(gateway, ctx(role="other", character="Cleo", scene=2, turn=5))
    again = await say(gateway, ctx(role="other", character="Cleo", scene=2, turn=5))
    assert first.text == again.text


async def test_each_task_has_its_own_recognisable_line(gateway):
    direction = (await say(gateway, ctx(role="superego", task="direct"))).text
    assert direction.startswith("*(scripted)") and direction.endswith("*")
    assert "*" not in direction[1:-1]

    texts = {}
    for task in ("speak", "rewrite_speech", "draft", "critique", "revise", "rewrite_prompt", "epilogue"):
        text = (await say(gateway, ctx(task=task, character="Cleo"))).text
        assert text.startswith("(scripted)") and "Cleo" in text, text
        texts[task] = text
    assert len(set(texts.values())) == len(texts)
    assert "reworked" in texts["rewrite_speech"]
    assert "epilogue" in texts["epilogue"]


async def test_critic_returns_a_json_verdict_that_follows_the_scene(gateway):
    scene = [{"role": "user", "content": "SASHA: I came back for the letter.\nCLEO: Then take it."}]
    verdict = json.loads((await say(gateway, ctx(role="critic", task="critic"), messages=scene)).text)
    for criterion in ("behavioural_change", "introspection", "narrative_divergence", "successful_adaptation"):
        assert isinstance(verdict[criterion]["score"], int) and 0 <= verdict[criterion]["score"] <= 10
        assert verdict[criterion]["interpretation"]
    assert verdict["summary"]

    again = json.loads((await say(gateway, ctx(role="critic", task="critic", turn=9), messages=scene)).text)
    assert again == verdict


async def test_queued_cues_are_served_in_order_to_the_matching_call(gateway):
    scripted.queue("The critique you asked for.", task="critique")
    scripted.queue("First.")
    scripted.queue("Second.")
    assert (await say(gateway)).text == "First."
    assert (await say(gateway)).text == "Second."
    assert (await say(gateway)).text.startswith("(scripted)")
    assert (await say(gateway, ctx(task="critique"))).text == "The critique you asked for."


async def test_scripted_delay_slows_the_stream(gateway, monkeypatch):
    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.02")
    scripted.queue("one two three four five")
    started = time.monotonic()
    await say(gateway)
    assert time.monotonic() - started >= 0.08


# --------------------------------------------------------------------------- retries and errors


async def test_a_rate_limit_is_retried_and_the_call_succeeds(gateway):
    scripted.queue("!error:429")
    scripted.queue("Worth the wait.")
    retries: list[tuple[int, str]] = []
    done = await gateway.complete(settings(), MESSAGES, ctx(), on_retry=lambda n, why: retries.append((n, why)))
    assert done.text == "Worth the wait."
    assert done.attempts == 2
    assert [(n, why.split(";")[0]) for n, why in retries] == [(2, "rate limited (429)")]
    assert "trying again in" in retries[0][1] and "attempt 2 of" in retries[0][1]


@pytest.mark.parametrize("marker", ["!error:timeout", "!error:500", "!error:503", "!error:connection"])
async def test_transient_failures_are_retried(gateway, marker):
    scripted.queue(marker)
    scripted.queue("Back again.")
    done = await say(gateway)
    assert (done.text, done.attempts) == ("Back again.", 2)


async def test_a_failure_mid_line_tells_the_caller_before_the_retry(gateway):
    scripted.queue("I was about to !error:500")
    scripted.queue("Let me start again.")
    events: list[str] = []
    done = await gateway.complete(
        settings(), MESSAGES, ctx(), on_token=events.append, on_retry=lambda n, why: events.append(f"<retry {n}>")
    )
    assert "".join(events) == "I was about to <retry 2>Let me start again."
    assert done.text == "Let me start again."


async def test_persistent_rate_limits_give_up_with_a_clear_message(gateway):
    for _ in range(4):
        scripted.queue("!error:429")
    with pytest.raises(ModelError) as caught:
        await say(gateway, retries=3)
    error = caught.value
    assert error.attempts == 4 and error.model == "scripted"
    message = str(error)
    assert "\n" not in message
    assert message.startswith("scripted:")
    assert "429" in message and "4 attempts" in message and "try again later" in message


async def test_a_bad_key_is_not_retried_and_says_what_to_fix(gateway):
    scripted.queue("!error:auth")
    scripted.queue("never reached")
    retries: list[int] = []
    with pytest.raises(ModelError) as caught:
        await gateway.complete(settings(), MESSAGES, ctx(), on_retry=lambda n, why: retries.append(n))
    assert caught.value.attempts == 1 and retries == []
    assert "credentials" in str(caught.value) and "key" in str(caught.value)


@pytest.mark.parametrize(("marker", "hint"), [("!error:404", "check the model name"), ("!error:400", "rejected")])
async def test_requests_the_provider_refuses_are_not_retried(gateway, marker, hint):
    scripted.queue(marker)
    with pytest.raises(ModelError) as caught:
        await say(gateway)
    assert caught.value.attempts == 1
    assert hint in str(caught.value)


async def test_each_attempt_has_a_deadline(gateway):
    scripted.queue("!error:hang")
    scripted.queue("!error:hang")
    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        await say(gateway, timeout=0.2, retries=1)
    assert time.monotonic() - started < 3
    assert caught.value.attempts == 2
    assert "no answer within 0.2s" in str(caught.value)


async def test_a_hung_attempt_is_retried(gateway):
    scripted.queue("!error:hang")
    done = await say(gateway, timeout=0.2)
    assert done.attempts == 2 and done.text.startswith("(scripted)")


async def test_cancelling_the_call_stops_the_stream_at_once(gateway, monkeypatch):
    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.05")
    tokens: list[str] = []
    call = asyncio.create_task(gateway.complete(settings(), MESSAGES, ctx(), on_token=tokens.append))
    while not tokens:
        await asyncio.sleep(0.01)
    call.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert time.monotonic() - started < 0.5
    heard = len(tokens)
    await asyncio.sleep(0.2)
    assert len(tokens) == heard


async def test_an_error_in_the_callers_on_token_is_not_mistaken_for_a_model_failure(gateway):
    def clumsy(piece: str) -> None:
        raise KeyError("the UI's own bug")

    with pytest.raises(KeyError):
        await gateway.complete(settings(), MESSAGES, ctx(), on_token=clumsy)


# --------------------------------------------------------------------------- usage, settings, names


async def test_usage_is_recorded_for_every_call(gateway):
    done = await say(gateway)
    usage = done.usage
    assert set(usage) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_public_settings_hold_what_the_database_may_keep(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-written-anywhere")
    public = CallSettings("openai/gpt-4o-mini", 0.4, 300, timeout=30, api_base="http://localhost:1234").public()
    assert public == {
        "model": "openai/gpt-4o-mini",
        "temperature": 0.4,
        "max_tokens": 300,
        "timeout": 30,
        "api_base": "http://localhost:1234",
    }
    assert "sk-test" not in json.dumps(public)


def test_check_model_knows_routable_names_and_rejects_the_rest():
    for name in ("openai/gpt-4o-mini", "ollama_chat/llama3", *BUILTIN_MODELS):
        assert check_model(name) is None, name
    reason = check_model("nonsense-model-xyz")
    assert reason is not None and "nonsense-model-xyz" in reason and "local/smollm2" in reason
    assert "\n" not in reason
    assert check_model("local/gpt-5") is not None
    assert check_model("") is not None


def test_a_model_chosen_by_a_character_sheet_is_blamed_on_that_sheet(tmp_path, monkeypatch):
    """The file to fix is the one that chose the model: the sheet, not the play that names the character."""
    from conftest import ROOT

    from studio.engine.forms import load_play, resolve_cast
    from studio.llm import check_cast_models
    from studio.model import InputError

    (tmp_path / "plays").mkdir()
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays" / "interview.toml").write_text((ROOT / "plays" / "interview.toml").read_text())
    for name in ("jenny", "cleo", "sasha_interviewer"):
        text = (ROOT / "characters" / f"{name}.toml").read_text()
        if name == "jenny":
            text = 'model = "nonsense-model-xyz"\n' + text
        (tmp_path / "characters" / f"{name}.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    cast = resolve_cast(load_play("plays/interview.toml"), "plays/interview.toml")
    with pytest.raises(InputError) as caught:
        check_cast_models(cast, "plays/interview.toml")
    assert caught.value.where.endswith("jenny.toml") and caught.value.field == "model"
    assert "nonsense-model-xyz" in caught.value.problem and "jenny.toml" in (caught.value.fix or "")


async def test_a_missing_key_is_named_without_being_shown(gateway, monkeypatch):
    from studio.llm import faults, litellm_loader

    litellm = litellm_loader.load()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    verdict = faults.judge(
        litellm,
        litellm.AuthenticationError(message="bad key sk-abcdefghijklmnop", llm_provider="openai", model="gpt-4o-mini"),
        CallSettings("openai/gpt-4o-mini", 0.7, 10),
    )
    assert not verdict.retry
    assert "OPENAI_API_KEY" in verdict.fix
    assert "sk-abcdefghijklmnop" not in verdict.reason + verdict.fix


async def test_a_hosted_model_without_its_key_fails_at_once_naming_the_variable(gateway, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelError) as caught:
        await gateway.complete(CallSettings("anthropic/claude-3-5-haiku-latest", 0.7, 16), MESSAGES, ctx())
    assert caught.value.attempts == 1
    assert str(caught.value) == "anthropic/claude-3-5-haiku-latest: no API key found; set ANTHROPIC_API_KEY"


# --------------------------------------------------------------------------- hygiene


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_importing_the_package_does_not_import_litellm():
    result = _run("import studio.llm, sys; assert 'litellm' not in sys.modules, 'litellm imported eagerly'")
    assert result.returncode == 0, result.stderr


def test_calls_print_nothing_to_the_terminal():
    result = _run(
        """
        import asyncio
        from studio.llm import CallContext, CallSettings, Gateway, ModelError, check_model, scripted

        async def main():
            gateway = Gateway(backoff=0.001)
            ctx = CallContext("ego", "speak", "Sasha", 1, 1)
            messages = [{"role": "user", "content": "hello"}]
            await gateway.complete(CallSettings("scripted", 0.7, 50), messages, ctx)
            scripted.queue("half a line !error:500")
            await gateway.complete(CallSettings("scripted", 0.7, 50), messages, ctx)
            for marker in ("!error:auth", "!error:bogus"):
                scripted.queue(marker)
                try:
                    await gateway.complete(CallSettings("scripted", 0.7, 50), messages, ctx)
                except ModelError:
                    pass
            assert check_model("nonsense-model-xyz")

        asyncio.run(main())
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""


# --------------------------------------------------------------------------- the embedded model


def test_a_missing_model_package_says_how_to_fix_it(monkeypatch):
    from importlib import metadata

    from studio.llm import local

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    with pytest.raises(ModelError) as caught:
        local.gguf_path()
    assert "scripts/setup" in str(caught.value)


@pytest.mark.embedded
async def test_the_embedded_model_answers_quietly(gateway, capfd):
    tokens: list[str] = []
    done = await gateway.complete(
        CallSettings("local/smollm2", temperature=0.0, max_tokens=16), MESSAGES, ctx(), on_token=tokens.append
    )
    assert done.text.strip()
    assert "".join(tokens) == done.text
    assert 0 < done.usage["completion_tokens"] <= 16
    assert done.usage["prompt_tokens"] > 10
    assert done.usage["total_tokens"] == done.usage["prompt_tokens"] + done.usage["completion_tokens"]
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@pytest.mark.embedded
def test_the_embedded_model_leaves_the_terminal_clean_through_exit():
    result = _run(
        """
        import asyncio
        from studio.llm import CallContext, CallSettings, Gateway

        async def main():
            done = await Gateway().complete(
                CallSettings("local/smollm2", 0.0, 4),
                [{"role": "user", "content": "Hello."}],
                CallContext("ego", "speak", "Sasha"),
            )
            assert done.text

        asyncio.run(main())
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""


@pytest.mark.embedded
async def test_the_embedded_model_stops_when_cancelled(gateway):
    tokens: list[str] = []
    call = asyncio.create_task(
        gateway.complete(CallSettings("local/smollm2", 0.7, 2000), MESSAGES, ctx(), on_token=tokens.append)
    )
    while not tokens:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    started = time.monotonic()
    done = await gateway.complete(CallSettings("local/smollm2", 0.0, 4), MESSAGES, ctx())
    assert done.text
    assert time.monotonic() - started < 10  # the cancelled generation did not run on to 2000 tokens


@pytest.mark.embedded
async def test_the_embedded_model_refuses_a_prompt_longer_than_its_context(gateway):
    flood = [{"role": "user", "content": "rain " * 6000}]
    with pytest.raises(ModelError) as caught:
        await gateway.complete(CallSettings("local/smollm2", 0.0, 8), flood, ctx())
    assert caught.value.attempts == 1
    assert "tokens" in str(caught.value) and "shorten" in str(caught.value)
