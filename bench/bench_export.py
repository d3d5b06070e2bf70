"""What a script costs to export: each format, for a run in Latin only and for the same run in every
writing system (Chinese, Japanese, Korean, Arabic and Hebrew long enough to wrap, Devanagari, Thai,
emoji sequences), side by side.

The run is written straight to a store (no model), `lines` stage lines in all; every format is exported
`repeat` times and the median reported. The PDF figures include line breaking, right-to-left ordering,
HarfBuzz shaping and font subsetting; the first export of a process also registers the fonts, reported
apart. `--root` imports the studio from another checkout, to set figures beside another version's.

    .venv/bin/python bench/bench_export.py [--lines N] [--repeat N] [--root PATH]
Goal: a 200-line run in every script exports to PDF in under 2 s per layout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = [
    "房间里非常安静，雨慢慢地敲打着窗户，我们每个人都在等待对方先开口说话，直到走廊尽头最后一盏灯熄灭为止。",
    "部屋はとても静かで、雨がゆっくりと窓を叩いていた。私たちはそれぞれ、相手が先に話すのを待っていた。",
    "방은 아주 조용했고 비가 천천히 창문을 두드렸다. 우리는 각자 상대방이 먼저 말하기를 기다렸다.",
    "كانت الغرفة هادئة جدا، والمطر يطرق النوافذ ببطء، وكل واحد منا ينتظر أن يتكلم الآخر أولا قبل أن ينطفئ الضوء",
    "החדר היה שקט מאוד, והגשם דפק על החלונות לאט, וכל אחד מאיתנו חיכה שהשני ידבר ראשון לפני שהאור יכבה",
    "कमरा बहुत शांत था, और बारिश धीरे-धीरे खिड़कियों पर दस्तक दे रही थी।",
    "ห้องเงียบมาก และฝนก็เคาะหน้าต่างอย่างช้าๆ",
    "We laughed 👩‍👩‍👧‍👦 👨🏽‍💻 🏳️‍🌈 ❤️‍🔥 🧑‍🚀 👍🏿 🇯🇵 😀",
]
LATIN = "The room was very quiet, and the rain knocked slowly on the windows while each of us waited for the other."


def make_run(store, lines: int, texts: list[str]) -> int:
    from studio.engine.forms import load_play, resolve_cast
    from studio.store import events as ev

    root = Path(__file__).resolve().parent.parent
    play = root / "plays" / "interview.toml"
    cast = resolve_cast(load_play(play), play, model="scripted")
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1: A kitchen, late", scene=1, turn=1).id
    for i in range(lines):
        role, name = ("ego", "Jenny") if i % 2 else ("other", "Sasha")
        head = store.append(run_id, head, ev.STAGE, texts[i % len(texts)], role=role, character=name, scene=1,
                            turn=i + 1).id
    store.append(run_id, head, ev.EPILOGUE, texts[0], role="ego", character="Jenny", scene=1, turn=lines + 1)
    return run_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    from studio.export import export_run
    from studio.store import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "studio.db")
        runs = {"Latin only": make_run(store, args.lines, [LATIN]), "every script": make_run(store, args.lines, SCRIPTS)}
        started = time.perf_counter()
        export_run(store, runs["Latin only"], "pdf", out=Path(folder) / "warm.pdf", warn=lambda m: None)
        print(f"studio from {args.root}; {args.lines} lines; first PDF of the process (fonts registered): "
              f"{time.perf_counter() - started:.2f} s")
        print(f"{'format':<10} " + " ".join(f"{name:>14}" for name in runs))
        for fmt in ("fountain", "markdown", "fdx", "pdf", "play-pdf"):
            cells = []
            for run_id in runs.values():
                times = []
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    export_run(store, run_id, fmt, out=Path(folder) / f"x-{fmt}", warn=lambda m: None)
                    times.append(time.perf_counter() - started)
                cells.append(f"{statistics.median(times) * 1000:11.0f} ms")
            print(f"{fmt:<10} " + " ".join(cells))
        store.close()


if __name__ == "__main__":
    main()
