"""The island played as a human contestant in a real terminal: tmux runs `studio open`, keys go in, the
pane comes out. One round as Amara Osei: an action, a talk, impressions typed as sentences, a vote the rules
refuse and then a valid one; the game view (key 5) must show the trust she typed among its alliances."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import time

import pytest

from conftest import ROOT
from studio.store import Store
from test_tui_tmux import tmux  # noqa: F401  (a fixture)

# A real terminal and the whole app in it: the quick path drives the same keys through the pilot.
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


def _asked(screen: str) -> str | None:
    """The input box's label, when it is open for Amara: `AMARA OSEI (c1) · votes · your line`."""
    for line in screen.splitlines():
        if "AMARA OSEI (c1) · " in line and ("your line" in line or "your answer" in line):
            return line.split("AMARA OSEI (c1) · ")[1].split(" · ")[0].strip()
    return None


def _box(screen: str) -> str:
    """The open input box's label and what is said under it, joined across the lines they wrap onto;
    empty when the box is not open for Amara."""
    box: list[str] = []
    for line in screen.splitlines():
        left = line.split("││")[0].strip("│ ")
        if "AMARA OSEI (c1) · " in left:
            box = [left]
        elif box:
            if "type here" in left or "Enter sends" in left or left.startswith("─"):
                break
            box.append(left)
    return " ".join(box)


def _progress(screen: str) -> tuple[str, str]:
    """What changes once an answer is taken: the run's turn in the header, and the box's label (a refused
    answer is asked again under a label that says so)."""
    turn = re.search(r"run turn (\d+)", screen)
    label = next((line.split("││")[0] for line in screen.splitlines() if "AMARA OSEI (c1) · " in line), "")
    return (turn.group(1) if turn else "", label)


def _choices(screen: str) -> list[str]:
    """The choices the box offers. A refused answer's reason names them too, in commas, before them: the
    list is what follows the last `one of:`."""
    text = _box(screen)
    if "one of: " not in text:
        return []
    return [c.strip() for c in text.rsplit("one of: ", 1)[1].split("(Enter")[0].split(" · ")]


def test_a_human_contestant_plays_a_round_and_the_game_view_shows_her_alliance(tmux, tmp_path):
    db = tmp_path / "studio.db"
    # the shipped island with two actions a round instead of five, so one round is a minute, not four
    (tmp_path / "plays").mkdir()
    island = (ROOT / "plays" / "island.toml").read_text()
    assert "actions_per_round = 5" in island
    (tmp_path / "plays" / "island.toml").write_text(island.replace("actions_per_round = 5", "actions_per_round = 2"))
    (tmp_path / "characters").symlink_to(ROOT / "characters")
    command = (
        f"unset COLUMNS LINES; cd {shlex.quote(str(tmp_path))} && STUDIO_DB={shlex.quote(str(db))} "
        f"PYTHONPATH={shlex.quote(str(ROOT))} STUDIO_TUI_NO_WARMUP=1 "
        f"{shlex.quote(sys.executable)} -m studio.cli open plays/island.toml "
        f"--model scripted --role c1=human; echo studio exited $?; sleep 60"
    )
    tmux("new-session", "-d", "-s", "studio", "-x", "200", "-y", "50", command)
    tmux.wait_for("Eight on an Island · run 1", "Next: round 1 begins")
    tmux.wait_for("Map")  # the game view is open from the start; the backstage, the notes and the cast make room
    for key in ("2", "3", "4"):
        tmux.keys(key)
    tmux.wait_for("Alliances")

    done: list[str] = []
    refused = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        screen = tmux.screen()
        if "Vote, round 1" in screen:
            break
        task = _asked(screen)
        if task is None:
            if "Your turn" not in screen and "●" not in screen:
                tmux.keys("s")
            time.sleep(0.3)
            continue
        if task == "chooses an action":
            talks = [c for c in _choices(screen) if c.startswith("talk to")]
            answer = talks[0] if talks and "talks" not in done else "wait"
        elif task == "talks":
            answer = "Stay close to me tonight, Bruno."
        elif task == "sizes up the others":
            answer = "I trust Bruno. I don't trust Hiro."
        elif task == "votes" and not refused:
            answer, refused = "the moon", True  # no player: the rules ask again
        elif task == "votes":
            assert done.count("votes") < 2, f"a valid vote was refused too\n{screen}"
            assert "one of: " in screen
            answer = next(c for c in _choices(screen) if "Hiro" in c) if any("Hiro" in c for c in _choices(screen)) \
                else _choices(screen)[0]
        elif task == "sets goals":
            answer = "Win Bruno over; find the idol"
        else:
            answer = "We talked, and I listened."
        done.append(task)
        asked = _progress(screen)
        tmux.type(answer)
        tmux.keys("Enter")
        # the answer is taken (a turn committed, or the box asks again) before the next one is typed: on a
        # slow machine the screen read just after Enter may still show this question, and an answer typed
        # again would land on the stage as keys
        settled = time.monotonic() + 30
        while _progress(tmux.screen()) == asked:
            assert time.monotonic() < settled, f"the answer {answer!r} was not taken\n{tmux.screen()}"
            time.sleep(0.2)
    else:
        raise AssertionError(f"the round did not end; answered {done}\n{tmux.screen()}")

    assert {"chooses an action", "talks", "sizes up the others"} <= set(done), done
    assert done.count("votes") == 2, done  # the refused vote, then the valid one
    screen = tmux.wait_for("Alliances", "Vote, round 1")
    assert "Amara Osei → Bruno Keller" in screen or "Amara Osei ⇄ Bruno Keller" in screen, screen
    assert "Amara Osei → Hiro Tanaka" not in screen

    tmux.keys("q")
    tmux.wait_for("studio exited 0")
    store = Store(db)
    try:
        mine = [e for e in store.take(1) if e.origin == "human" and e.character == "Amara Osei"]
        assert any(e.data.get("impressions", {}).get("Bruno Keller", "").startswith("trust +1") for e in mine)
        assert any(e.data.get("invalid") for e in mine), [(e.kind, e.data) for e in mine]
    finally:
        store.close()
