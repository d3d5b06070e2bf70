"""How each model is asked: the embedded model's gentler sampling, the stops every line gets, and the
built-in models' road around litellm."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import ROOT
from studio.llm import CallSettings
from studio.llm.requests import MAX_REMOTE_STOPS, build_request
from studio.llm.sampling import EMBEDDED_TEMPERATURE_SCALE, embedded_hint, settings_for

NAMES = ["Jenny", "Cleo", "Sasha"]


def test_the_embedded_model_is_sampled_for_its_size():
    ego = settings_for(model="local/smollm2", temperature=1.0, max_tokens=120, task="speak", names=NAMES,
                       speaker="Jenny")
    director = settings_for(model="local/smollm2", temperature=0.3, max_tokens=160, task="direct", names=NAMES)
    assert ego.temperature == 1.0 * EMBEDDED_TEMPERATURE_SCALE < 1.0
    assert director.temperature < ego.temperature  # the roles keep their order
    assert settings_for(model="local/smollm2", temperature=0.0, max_tokens=9, task="speak").temperature == 0.0
    assert ego.repeat_penalty and ego.repeat_penalty > 1.0 and ego.min_p and ego.top_p
    assert ego.max_tokens <= 64
    assert ego.stop == ("\n",)  # a tiny model's line ends at its first line break
    critique = settings_for(model="local/smollm2", temperature=1.0, max_tokens=160, task="critique", names=NAMES)
    assert critique.stop == ("\n",) and critique.max_tokens == 64  # a critique too: what follows is narration
    rewrite = settings_for(model="local/smollm2", temperature=1.0, max_tokens=400, task="rewrite_prompt", names=NAMES)
    assert rewrite.stop == ("\n",)  # and the character it rewrites: a second line was the model's own story
    # a role's own smaller limit still holds
    assert settings_for(model="local/smollm2", temperature=1.0, max_tokens=20, task="speak").max_tokens == 20


def test_real_models_keep_the_papers_temperatures_and_get_the_stops_on_lines():
    ego = settings_for(model="openai/gpt-4o-mini", temperature=1.0, max_tokens=120, task="speak", names=NAMES,
                       speaker="Jenny")
    assert (ego.temperature, ego.max_tokens, ego.repeat_penalty, ego.min_p) == (1.0, 120, None, None)
    assert ego.stop[0] == "\n\n" and ego.stop[-1] == "\nJenny:"  # the others' cues first
    critique = settings_for(model="openai/gpt-4o-mini", temperature=1.0, max_tokens=160, task="critique",
                            names=NAMES)
    assert critique.stop == ()
    # an API that takes four stops at most gets the blank line and the others' cues
    many = settings_for(model="openai/gpt-4o-mini", temperature=0.4, max_tokens=99, task="speak",
                        names=["A", "B", "C", "D", "E"], speaker="A")
    sent = build_request("openai/gpt-4o-mini", many, [])["stop"]
    assert len(sent) == MAX_REMOTE_STOPS and "\nA:" not in sent and sent[0] == "\n\n"


async def test_the_settings_of_every_call_are_in_its_event(engine_for):
    engine = engine_for(turns=1, strategies=[])
    await engine.play_turn()
    line = engine.path[-1]
    assert line.settings["model"] == "scripted"
    assert "\nSasha:" in line.settings["stop"] and "\n\n" in line.settings["stop"]
    assert "repeat_penalty" not in line.settings  # not set, not recorded


def test_public_settings_leave_out_what_was_not_set():
    assert set(CallSettings("x/y", 0.4, 10).public()) == {"model", "temperature", "max_tokens", "timeout", "api_base"}
    local = settings_for(model="local/smollm2", temperature=1.0, max_tokens=120, task="speak", names=NAMES)
    assert local.public()["repeat_penalty"] == local.repeat_penalty


def test_the_hint_under_a_run_header_is_for_the_embedded_model_only():
    assert "studio models" in embedded_hint(["scripted", "local/smollm2"])
    assert embedded_hint(["scripted", "openai/gpt-4o-mini"]) == ""


def test_a_built_in_model_streams_without_importing_litellm():
    code = """
        import asyncio, sys
        from studio.llm import CallContext, CallSettings, Gateway

        async def main():
            pieces = []
            done = await Gateway().complete(
                CallSettings("scripted", 0.7, 50), [{"role": "user", "content": "hello"}],
                CallContext("ego", "speak", "Jenny", 1, 1), on_token=pieces.append)
            assert done.text == "".join(pieces) and "(scripted)" in done.text, done.text
            assert done.usage["completion_tokens"] > 0

        asyncio.run(main())
        assert "litellm" not in sys.modules, "litellm was imported for a built-in model"
    """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


class _FakeCores:
    """Stands for /proc/stat: whether the rest of the machine left the cores idle since the last look."""

    def __init__(self, spare: bool):
        self.spare = spare

    def look(self) -> bool:
        return self.spare


def test_the_embedded_model_takes_every_core_only_while_nothing_else_needs_one(monkeypatch):
    from studio.llm import local

    monkeypatch.delenv("STUDIO_LLAMA_THREADS", raising=False)
    monkeypatch.setattr(local.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(local, "_ui_present", False)
    assert local.threads_now(_FakeCores(spare=True)) == (4, 4)   # an idle machine: all four cores
    assert local.threads_now(_FakeCores(spare=False)) == (3, 3)  # something else runs: one left free
    local.sharing_with_ui()                                       # the app draws every token: keep its core
    assert local.threads_now(_FakeCores(spare=True)) == (3, 3)
    monkeypatch.setattr(local, "_ui_present", False)
    monkeypatch.setenv("STUDIO_LLAMA_THREADS", "2")               # the user's number wins, idle or not
    assert local.threads_now(_FakeCores(spare=True)) == (2, 2)


def test_the_cores_count_other_processes_work_not_the_models_own(monkeypatch):
    from studio.llm import local

    clock = {"wall": 0.0, "busy": 0.0, "mine": 0.0}
    monkeypatch.setattr(local.Cores, "sample", staticmethod(lambda: (clock["wall"], clock["busy"], clock["mine"])))
    cores = local.Cores()
    clock.update(wall=1.0, busy=1.9, mine=1.8)    # the model itself kept two cores busy: still spare
    assert cores.look() is True
    clock.update(wall=2.0, busy=3.6, mine=2.8)    # others used 0.7 of a core meanwhile: not spare
    assert cores.look() is False
    clock.update(wall=2.1, busy=3.6, mine=2.8)    # too short a window to judge: the last verdict stands
    assert cores.look() is False


def test_the_first_call_after_loading_judges_the_cores_rather_than_reading_on_one_thread(monkeypatch):
    from studio.llm import local

    clock = {"wall": 0.0, "busy": 0.0, "mine": 0.0}
    monkeypatch.setattr(local.Cores, "sample", staticmethod(lambda: (clock["wall"], clock["busy"], clock["mine"])))
    waited = []

    def sleep(seconds):  # the machine stays idle while the studio looks
        waited.append(seconds)
        clock["wall"] += seconds

    monkeypatch.setattr(local.time, "sleep", sleep)
    cores = local.Cores()
    clock.update(wall=0.05)                       # the first call, straight after the model loaded
    assert cores.look() is True                   # an idle machine: every core, from the first prompt on
    assert waited and sum(waited) <= local.Cores.WINDOW
    clock.update(wall=0.55, busy=0.5, mine=0.0)   # others kept two cores busy since: not spare
    assert cores.look() is False
    clock.update(wall=0.6)                        # a verdict stands until the next window: no more waiting
    assert cores.look() is False
    assert len(waited) == 1
