"""The HTTP road against a real OpenAI-compatible server: llama-cpp-python's own, serving the bundled SmolLM2.

What users will run (`python -m llama_cpp.server`, vLLM, Ollama) validates requests, refuses a JSON schema
it does not take, streams, counts tokens and holds replies to a schema; these tests go through all of it
as a playwright and a researcher do: a play, a dilemma experiment whose every move is held to JSON, an
interview, and the lab over two servers through the Router. The stub server (tests/stub_server.py) still
plays the faults a real server will not produce on demand.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from llama_server import ALIAS, LlamaServer
from studio.llm import CallContext, CallSettings, Gateway
from studio.serve.model import unavailable
from test_cli import studio

# The real model runs here behind the real server: the quick path leaves them to the full run, and
# tests/test_served.py plays the same road against the stub server.
pytestmark = [pytest.mark.embedded, pytest.mark.server, pytest.mark.skipif(unavailable() is not None, reason=unavailable() or "")]
MODEL = f"openai/{ALIAS}"
ONE_SERVER: dict[str, dict] = {}  # the one-server report, for the two-server run to be compared with


@pytest.fixture(scope="module")
def server():
    with LlamaServer(lifetime=1800) as running:
        yield running


def _events(db, kind=None):
    from studio.store import Store

    store = Store(db)
    return [e for run in store.runs() for e in store.events(run.id) if kind is None or e.kind == kind]


def test_a_play_streams_counts_tokens_and_stops_at_the_others_cues(server, tmp_path):
    done = studio("run", "plays/interview.toml", "--model", MODEL, "--turns", "2", "--scenes", "1",
                  "--no-superego", db=tmp_path / "s.db", env={"STUDIO_API_BASE": server.url})
    assert done.returncode == 0, done.stderr
    lines = [e for e in _events(tmp_path / "s.db", "stage") if e.origin == "model"]
    assert lines and all(e.model == MODEL for e in lines)
    assert all(e.usage["prompt_tokens"] > 0 and e.usage["completion_tokens"] > 0 for e in lines)  # the server's count
    names = {"Ines", "Tomas", "Director"}
    assert not any(f"\n{n}:" in e.text for e in lines for n in names)  # a cue ends the line


def test_a_call_cancelled_mid_stream_stops_and_the_server_serves_the_next(server):
    settings = CallSettings(model=MODEL, temperature=0.7, max_tokens=200, api_base=server.url)
    messages = [{"role": "user", "content": "Tell a long story about a lighthouse."}]

    async def cancel_after_first_token():
        got = asyncio.Event()
        task = asyncio.create_task(Gateway().complete(settings, messages, CallContext("ego", "epilogue", "Ada"),
                                                      on_token=lambda piece: got.set()))
        await asyncio.wait_for(got.wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await Gateway().complete(settings, [{"role": "user", "content": "Say hello."}],
                                        CallContext("ego", "speak", "Ada"))

    after = asyncio.run(cancel_after_first_token())
    assert after.text.strip() and after.usage["completion_tokens"] > 0


def test_every_dilemma_move_is_read_from_json_the_server_held(server, tmp_path):
    done = studio("lab", "run", "experiments/pd_small.toml", "--model", MODEL, "--endpoint", server.url, "--max-parallel", "1", "--json",
                  db=tmp_path / "s.db")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert not report.get("failed"), report.get("failed")
    ONE_SERVER["report"] = report
    moves = [e for e in _events(tmp_path / "s.db") if (e.settings or {}).get("schema") and e.origin == "model"]
    assert len(moves) >= 8 * 6  # every trial, every round
    # llama-cpp-python refuses a json_schema response_format; JSON mode with the schema is what it holds
    assert {e.settings["structured"] for e in moves} == {"json"}
    for move in moves:  # the stage shows the move in words; the reply as the server held it is kept beside it
        assert move.data["move"] in ("C", "D")
        assert json.loads(move.data["reply"])["move"] in ("Project Green", "Project Blue"), move.data["reply"]
    notes = _events(tmp_path / "s.db", "control")
    assert any("refused a JSON schema" in n.text for n in notes)


def test_an_interview_answer_and_its_rating_come_from_the_server(server, tmp_path):
    done = studio("lab", "interview", "mara_lighthouse", "--method", "oc", "--model", MODEL, "--json",
                  db=tmp_path / "s.db", env={"STUDIO_API_BASE": server.url})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    text = json.dumps(result)
    assert "openness" in text.lower()
    answers = [e for e in _events(tmp_path / "s.db", "stage") if e.origin == "model"]
    assert answers and all(e.model == MODEL for e in answers)


def test_the_lab_over_two_servers_plays_every_trial_once_on_both(server, tmp_path):
    with LlamaServer(lifetime=900) as second:
        before = server.chat_requests()
        done = studio("lab", "run", "experiments/pd_small.toml", "--model", MODEL, "--endpoint", server.url,
                      "--endpoint", second.url, "--max-parallel", "1", "--json", db=tmp_path / "two.db")
        first_share, second_share = server.chat_requests() - before, second.chat_requests()
    assert done.returncode == 0, done.stderr
    two = json.loads(done.stdout)
    assert not two.get("failed") and first_share > 0 and second_share > 0
    from studio.store import Store

    assert len(Store(tmp_path / "two.db").runs()) == 8  # every trial once, none twice
    one = ONE_SERVER.get("report")
    if one is None:  # run alone: make the one-server report here
        alone = studio("lab", "run", "experiments/pd_small.toml", "--model", MODEL, "--endpoint", server.url,
                       "--max-parallel", "1", "--json", db=tmp_path / "one.db")
        one = json.loads(alone.stdout)
    shape = lambda report: [(t["title"], t["columns"], len(t["rows"])) for t in report["tables"]]  # noqa: E731
    figures = lambda report: len((report.get("paper") or {}).get("figures") or [])  # noqa: E731
    assert shape(two) == shape(one) and figures(two) == figures(one)
