"""A key to the next frame in a browser tab of `studio serve`, beside the same key in a terminal.

The served studio runs on 127.0.0.1 with Debian's chromium (headless, through playwright-python) on a
run of The Interview (scripted model, a few turns in). The key moves the stage's selection up and down.
In the tab the clock runs inside the page: from the keydown to the first frame painted after the app's
answer arrives on the socket (requestAnimationFrame after the message). In the terminal (tmux) the
clock runs from `send-keys` until the pane shows the change, polled as fast as tmux answers, so it
overstates by the polling's own few milliseconds. Goal: the tab's median at most 50 ms on 2 quiet cores.

    .venv/bin/python bench/bench_browser.py [--keys N]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

CLOCK = """
window.__frames = [];
let pressed = null;
document.addEventListener("keydown", () => { pressed = performance.now(); }, true);
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      if (pressed === null || typeof event.data === "string") return;
      const start = pressed;
      pressed = null;
      requestAnimationFrame(() => window.__frames.push(performance.now() - start));
    });
  }
};
"""


def in_the_browser(db: Path, keys: int) -> list[float]:
    from browser import Tab, app_command, browser, served

    os.chdir(ROOT)
    with served(app_command(db, "plays/interview.toml", "--model", "scripted"), max_requests=100,
                lifetime=600) as server, browser() as chromium:
        context = chromium.new_context(viewport={"width": 1200, "height": 800})
        context.add_init_script(CLOCK)
        tab = Tab(context, server.address())
        tab.wait_for("The Interview", "Next: scene 1 opens")
        tab.page.mouse.click(600, 400)
        for _ in range(3):  # a few lines on stage to move between
            mark = tab.since()
            tab.press("s")
            tab.wait_for_new(mark, "Next:")
            tab.page.wait_for_timeout(1500)
        tab.page.evaluate("() => { window.__frames.length = 0; }")
        for i in range(keys):
            tab.press("ArrowUp" if i % 2 == 0 else "ArrowDown")
            tab.page.wait_for_function(f"() => window.__frames.length > {i}", timeout=10_000)
            tab.page.wait_for_timeout(150)
        frames = tab.page.evaluate("() => window.__frames")
        context.close()
    return [float(ms) for ms in frames]


def in_a_terminal(db: Path, keys: int) -> list[float]:
    socket = f"studio-bench-{uuid.uuid4().hex[:8]}"

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=30).stdout

    def pane() -> str:
        return tmux("capture-pane", "-p", "-t", "studio")

    def wait(text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in pane():
            if time.monotonic() > deadline:
                raise SystemExit(f"the terminal never showed {text!r}")
            time.sleep(0.05)

    command = (f"unset COLUMNS LINES; cd {shlex.quote(str(ROOT))} && {shlex.quote(sys.executable)} -m studio open "
               f"plays/interview.toml --model scripted --db {shlex.quote(str(db))}; sleep 5")
    tmux("new-session", "-d", "-s", "studio", "-x", "150", "-y", "40", command)
    try:
        wait("Next: scene 1 opens")
        for _ in range(3):
            tmux("send-keys", "-t", "studio", "s")
            time.sleep(1.5)
        wait("Next:")
        out = []
        for i in range(keys):
            before = pane()
            start = time.perf_counter()
            tmux("send-keys", "-t", "studio", "Up" if i % 2 == 0 else "Down")
            while pane() == before:
                if time.perf_counter() - start > 10:
                    raise SystemExit("the terminal did not redraw after a key")
            out.append((time.perf_counter() - start) * 1000)
            time.sleep(0.15)
        return out
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def summary(name: str, ms: list[float]) -> str:
    ordered = sorted(ms)
    return (f"{name}: median {statistics.median(ms):.1f} ms, p90 {ordered[int(len(ordered) * 0.9) - 1]:.1f} ms, "
            f"worst {ordered[-1]:.1f} ms over {len(ms)} keys")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=40, help="keys pressed in each (default 40)")
    args = parser.parse_args()
    from browser import missing

    why = missing()
    if why:
        raise SystemExit(f"cannot run the browser here: {why}")
    with tempfile.TemporaryDirectory() as folder:
        tab = in_the_browser(Path(folder) / "tab.db", args.keys)
        print(summary("browser tab (studio serve, chromium, 127.0.0.1)", tab))
        if shutil.which("tmux"):
            terminal = in_a_terminal(Path(folder) / "terminal.db", args.keys)
            print(summary("terminal (tmux, polled)", terminal))
        print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
