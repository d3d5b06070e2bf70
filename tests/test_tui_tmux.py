"""One end-to-end run in a real terminal: tmux runs `studio open`, keys go in, the pane comes out.

Pilot drives the app from inside its own loop; this drives the installed command through a real pty,
so the terminal driver, the key parser and the process's exit are exercised too.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from conftest import ROOT
from studio.store import Store, events as ev

# A real terminal and the whole app in it: the quick path drives the same keys through the pilot.
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


class Tmux:
    def __init__(self) -> None:
        self.socket = f"studio-test-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {done.stderr}")
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "studio")

    def wait_for(self, *texts: str, gone: str | None = None, timeout: float = 90.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(t in screen for t in texts) and (gone is None or gone not in screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {texts} (gone: {gone}); the pane shows:\n{screen}")
            time.sleep(0.1)

    def keys(self, *keys: str) -> None:
        self("send-keys", "-t", "studio", *keys)

    def type(self, text: str) -> None:
        self("send-keys", "-t", "studio", "-l", "--", text)  # "--": a text may start with a dash

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def tmux():
    session = Tmux()
    yield session
    session.kill()


def test_step_rewind_take_over_and_type_a_line_in_a_real_terminal(tmux, tmp_path):
    db = tmp_path / "studio.db"
    # tmux hands its own client's idea of the size (80x24 without a terminal) down as COLUMNS/LINES.
    command = (
        f"unset COLUMNS LINES; cd {shlex.quote(str(ROOT))} && STUDIO_DB={shlex.quote(str(db))} "
        f"{shlex.quote(sys.executable)} -m studio.cli open plays/interview.toml --model scripted; "
        "echo studio exited $?; sleep 60"
    )
    env_size = ["-x", "100", "-y", "30"]
    tmux("new-session", "-d", "-s", "studio", *env_size, command)

    tmux.wait_for("The Interview · run 1", "Next: scene 1 opens")
    tmux.keys("s")
    tmux.wait_for("turn 1/10", "JENNY  (scripted)", "Next: Sasha speaks")
    tmux.keys("s")
    tmux.wait_for("turn 2/10", "scene 1 turn 2", "Next: Sasha speaks")  # the whole turn, Jenny's reply too

    tmux.keys("r")
    tmux.wait_for("turn 1/10", "Rewound one turn", gone="scene 1 turn 2")

    tmux.keys("t")
    tmux.wait_for("Take over a role")
    tmux.keys("Enter")  # the first role is Jenny, the ego
    tmux.wait_for("you play Jenny")

    tmux.keys("s")
    tmux.wait_for("JENNY (ego) · speaks · your line")
    tmux.type("I never said that.")
    tmux.keys("Enter")
    # the activity line is redrawn when the worker that committed the line ends, a frame after the stage
    screen = tmux.wait_for("JENNY  I never said that.", "yours", "Next: Sasha speaks")
    assert "Next: Sasha speaks" in screen

    tmux.keys("q")
    tmux.wait_for("studio exited 0")

    store = Store(db)
    try:
        take = store.take(1)
        line = [e for e in take if e.kind == ev.STAGE][-1]
        assert (line.text, line.origin, line.role) == ("I never said that.", "human", "ego")
        rewound = [e for e in store.events(1) if e.turn == 2 and e.origin == "model" and e.kind == ev.STAGE]
        assert len(rewound) == 3  # the turn rewound away, and the new turn's Sasha line: every take kept
    finally:
        store.close()


def test_keys_typed_right_after_esc_in_a_real_terminal_are_keys_not_an_alt_chord(tmux, tmp_path):
    """In a terminal Esc is the first byte of escape sequences too: a key within the escape delay after it
    read as alt+key, so Esc never closed the jump box and `:` `s9` Esc `:` `foo` left `s9:foo` in it."""
    db = tmp_path / "studio.db"
    command = (
        f"unset COLUMNS LINES ESCDELAY; cd {shlex.quote(str(ROOT))} && STUDIO_DB={shlex.quote(str(db))} "
        f"STUDIO_TUI_NO_WARMUP=1 {shlex.quote(sys.executable)} -m studio.cli open plays/interview.toml "
        "--model scripted; echo studio exited $?; sleep 60"
    )
    tmux("new-session", "-d", "-s", "studio", "-x", "100", "-y", "30", command)
    tmux.wait_for("The Interview · run 1", "Next: scene 1 opens")
    tmux.keys("s")
    tmux.wait_for("turn 1/10", "Next: Sasha speaks")
    tmux.keys(":")
    tmux.type("s9")
    tmux.wait_for("no scene 9")
    tmux.keys("Escape")
    time.sleep(0.06)  # a quick typist's Esc then `:`; under Textual's own 100 ms it was one alt chord
    tmux.keys(":")
    tmux.type("foo")
    # the box opens empty and then holds what was typed; on a loaded machine the two frames come apart
    screen = tmux.wait_for("▎", "foo")
    assert "s9:foo" not in screen and "s9" not in screen, screen
    tmux.keys("Escape")
    time.sleep(0.2)
    tmux.keys("q")
    tmux.wait_for("studio exited 0")


def test_two_hundred_characters_typed_into_the_new_play_form_beside_a_busy_cpu_all_arrive_in_order(tmux, tmp_path):
    """A real terminal's reader hands the app whatever arrived since it last looked, so on a loaded machine
    keys come in bursts: each must reach the form, in the order typed, and soon."""
    import random
    import tomllib

    (tmp_path / "plays").mkdir()
    words = ("the", "visit", "at", "dusk", "by", "9", "quiet", "rooms,", "and", "a", "door.", "Kept", "0", "late",
             "(again)", "O'Hara's", "50%", "-", "ends")
    typed = ""
    while len(typed) < 200:
        typed += random.Random(len(typed)).choice(words) + " "
    typed = typed[:199] + "x"
    command = (
        f"unset COLUMNS LINES; cd {shlex.quote(str(tmp_path))} && STUDIO_DB={shlex.quote(str(tmp_path / 'studio.db'))} "
        f"PYTHONPATH={shlex.quote(str(ROOT))} STUDIO_TUI_NO_WARMUP=1 {shlex.quote(sys.executable)} -m studio.cli open; "
        "echo studio exited $?; sleep 60"
    )
    tmux("new-session", "-d", "-s", "studio", "-x", "100", "-y", "30", command)
    tmux.wait_for("New play")
    tmux.keys("n")
    tmux.wait_for("A new play")
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        chunks = random.Random(7)
        at = 0
        while at < len(typed):  # a fast typist's keys, read a few at a time
            size = chunks.randint(1, 9)
            tmux.type(typed[at:at + size])
            at += size
        tmux.wait_for(typed[-20:], timeout=60)
    finally:
        spinner.kill()
        spinner.wait()
    tmux.keys("Enter")
    tmux.wait_for("Nothing on stage yet", timeout=60)  # the new play's run, open
    written = list((tmp_path / "plays").glob("*.toml"))
    assert len(written) == 1, written
    title = tomllib.loads(written[0].read_text())["title"]
    assert title == typed.strip(), (title, typed)
    tmux.keys("q")
    tmux.wait_for("studio exited 0")
