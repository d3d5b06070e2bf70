"""One model on several endpoints: the lab's trials spread over two stub servers on 127.0.0.1 (bounded,
stopped by each test), each held to its cap; a failing server is passed over, and bad URLs are bad input."""

import asyncio
import json

import pytest

from stub_server import Reply, Status, StubServer
from studio.lab.trials import Trials
from studio.llm import Gateway
from studio.llm.router import make_router, router_from_table
from studio.model import InputError
from test_cli import bad, studio
from test_lab_runner import dilemma, run

MOVE = '{"move": "C", "reason": "they have kept faith so far"}'
MODEL = "openai/stub"


def stub(*behaviours, **options):
    return StubServer(list(behaviours) or [Reply(MOVE, latency=0.05)], max_requests=200, lifetime=60, **options)


def test_trials_reach_both_endpoints_and_each_is_held_to_its_cap(store):
    with stub() as a, stub() as b:
        router = make_router(MODEL, [a.url, b.url], max_parallel=1)
        experiment = dilemma(["control"], ["always_cooperate", "tit_for_tat_c"], reps=2, model=MODEL, concurrency=4)
        finished, failed = run(store, experiment, gateway=Gateway(routers=[router], backoff=0.001))
    assert not failed and len(finished) == 4
    assert len(a.requests) + len(b.requests) == 4 * 6  # six rounds a trial, one call a round, none lost
    assert a.requests and b.requests  # both servers took a share
    # four trials at once, but never more than one call open at either server
    assert a.peak == 1 and b.peak == 1
    assert [s["calls"] for s in router.stats()] == [len(a.requests), len(b.requests)]
    assert not any(r.get("stream") for r in a.requests + b.requests)  # unattended trials ask for whole replies


def test_a_failing_endpoint_is_passed_over_and_the_trials_finish_on_the_other(store):
    with stub(Status(500)) as broken, stub() as good:
        router = make_router(MODEL, [broken.url, good.url], max_parallel=2)
        experiment = dilemma(["competitive"], ["always_defect"], reps=3, model=MODEL, concurrency=3)
        finished, failed = run(store, experiment, gateway=Gateway(routers=[router], backoff=0.001))
    assert not failed and len(finished) == 3
    assert broken.requests  # it was tried...
    assert len(good.requests) == 3 * 6  # ...and every move came from the other one
    assert router.stats()[0]["failures"] == len(broken.requests)


def test_when_every_endpoint_fails_the_trial_is_recorded_failed_naming_the_server(store):
    with stub(Status(503)) as a, stub(Status(503)) as b:
        router = make_router(MODEL, [a.url, b.url], max_parallel=2)
        experiment = dilemma(["control"], ["always_cooperate"], reps=1, model=MODEL, concurrency=1)
        finished, failed = run(store, experiment, gateway=Gateway(routers=[router], backoff=0.001))
    assert finished == {} and len(failed) == 1
    error = next(iter(failed.values()))
    assert "unavailable" in error and "after 4 attempts" in error
    assert a.url in error or b.url in error
    assert a.requests and b.requests  # the retries went to both
    assert Trials(store).experiments() == [(experiment.name, 0, 1)]


def test_a_waiting_call_that_is_cancelled_gives_no_slot_away():
    router = make_router(MODEL, ["http://127.0.0.1:9/v1"], max_parallel=1)

    async def scene():
        async with router.slot():
            waiting = asyncio.create_task(_take(router))
            await asyncio.sleep(0.01)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
        # the slot is free again: the next caller gets it at once
        await asyncio.wait_for(_take(router), 1.0)
        return router.stats()[0]

    stats = asyncio.run(scene())
    assert stats["in_flight"] == 0 and stats["calls"] == 2


async def _take(router):
    async with router.slot():
        pass


def test_the_lab_command_spreads_trials_over_its_endpoints(tmp_path):
    with stub() as a, stub() as b:
        done = studio("lab", "pd", "--model", MODEL, "--endpoint", a.url, "--endpoint", b.url, "--reps", "2",
                      "--group", "control", "--partner", "always_cooperate", "--concurrency", "2", "--json",
                      db=tmp_path / "s.db")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["trials"] == 2 and not report["failed"]
    assert len(a.requests) + len(b.requests) == 12 and a.requests and b.requests


@pytest.mark.parametrize("args, words", [
    (["--model", MODEL, "--endpoint", "ftp://127.0.0.1/v1"], ["--endpoint", "ftp://127.0.0.1/v1", "http://"]),
    (["--model", MODEL, "--endpoint", "127.0.0.1:8000"], ["--endpoint", "not an http"]),
    (["--model", MODEL, "--endpoint", "http://127.0.0.1:8000/v1", "--endpoint", "http://127.0.0.1:8000/v1/"],
     ["--endpoint", "listed twice"]),
    (["--model", MODEL, "--endpoint", "http://127.0.0.1:8000/v1", "--max-parallel", "0"], ["--max-parallel"]),
    (["--model", "scripted", "--endpoint", "http://127.0.0.1:8000/v1"], ["--model", "openai/"]),
    (["--endpoint", "http://127.0.0.1:8000/v1"], ["--model", "local/smollm2", "openai/"]),  # the default model
    (["--model", MODEL, "--endpoint", "http://reader:hunter2secret@127.0.0.1:8000/v1"],
     ["--endpoint", "OPENAI_API_KEY"]),
])
def test_bad_endpoints_exit_2_naming_the_flag(tmp_path, args, words):
    result = studio("lab", "pd", *args, db=tmp_path / "s.db")
    bad(result, *words)
    assert "hunter2secret" not in result.stderr + result.stdout  # a password in a URL is never echoed


def test_an_experiment_file_names_the_bad_endpoint_and_its_place():
    with pytest.raises(InputError) as caught:
        router_from_table({"endpoints": ["http://127.0.0.1:8000/v1", "http//oops"]}, MODEL, "pd.toml")
    assert caught.value.where == "pd.toml" and caught.value.field == "endpoints[1]"
    with pytest.raises(InputError) as caught:
        router_from_table({"endpoints": ["http://127.0.0.1:8000/v1"], "max_parallel": "four"}, MODEL, "pd.toml")
    assert caught.value.field == "max_parallel"
    with pytest.raises(InputError) as caught:
        router_from_table({"endpoints": "http://127.0.0.1:8000/v1", "max_parallel": 2}, "local/smollm2", "pd.toml")
    assert caught.value.field == "model"
    assert router_from_table({}, MODEL, "pd.toml") is None
    router = router_from_table({"endpoints": ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"],
                                "max_parallel": 2}, MODEL, "pd.toml")
    assert router.max_parallel == 2 and len(router.stats()) == 2


def test_a_watched_call_through_the_router_still_streams_and_a_batch_call_comes_whole():
    from studio.llm import CallContext, CallSettings

    settings = CallSettings(model=MODEL, temperature=0.2, max_tokens=50)
    ctx = CallContext(role="other", task="line", character="Ines")
    with stub(Reply("The tide is out and the ferry waits.", chunks=4)) as a:
        gateway = Gateway(routers=[make_router(MODEL, [a.url])], backoff=0.001)
        pieces: list[str] = []
        watched = asyncio.run(gateway.complete(settings, [{"role": "user", "content": "Speak."}], ctx, on_token=pieces.append))
        batch = asyncio.run(gateway.complete(settings, [{"role": "user", "content": "Speak."}], ctx))
    assert len(pieces) > 1 and "".join(pieces) == watched.text == "The tide is out and the ferry waits."
    assert batch.text == watched.text and batch.usage["completion_tokens"] == 8
    assert [bool(r.get("stream")) for r in a.requests] == [True, False]


def test_waiting_for_a_busy_server_does_not_count_against_a_calls_timeout():
    from studio.llm import CallContext, CallSettings

    # one slot, twelve calls of 0.4 s: the last waits about 4.4 s for its turn, past the 4 s timeout,
    # and must still be answered (with no retries to hide a timeout); 4 s leaves a busy machine room for
    # the first call's own setting up
    settings = CallSettings(model=MODEL, temperature=0.2, max_tokens=50, timeout=4.0, retries=0)
    ctx = CallContext(role="other", task="move", character="control")
    with stub(Reply(MOVE, latency=0.4)) as a:
        gateway = Gateway(routers=[make_router(MODEL, [a.url], max_parallel=1)], backoff=0.001)

        async def batch():
            return await asyncio.gather(*(gateway.complete(settings, [{"role": "user", "content": "Move?"}], ctx)
                                          for _ in range(12)))

        replies = asyncio.run(batch())
    assert [r.text for r in replies] == [MOVE] * 12 and a.peak == 1
