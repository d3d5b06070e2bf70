"""How long `scripts/setup` takes on a fresh machine, and where the time goes.

It copies the repository's committed files into a temporary directory and runs `scripts/setup` there
with a pip cache of its own (empty unless --cache names one), so nothing already installed or cached
on this machine is reused. It prints the seconds of the whole set-up, the seconds of building
llama-cpp-python being a part of it (the line scripts/setup prints says whether it is built), and the
machine's load before and after: a set-up downloads and compiles, so a busy machine stretches it.
With --no-compiler the PATH has no cc, gcc, g++, clang, cmake or make, as on a machine without build
tools: the figure is then how long set-up takes to say so.

    .venv/bin/python bench/bench_setup.py [--no-compiler] [--cache DIR] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What scripts/setup runs besides Python: no cc, gcc, g++, clang, cmake or make among them.
TOOLS = ["bash", "cat", "cut", "dirname", "find", "grep", "head", "sha256sum", "tr", "uname", "mktemp", "rm"]


def committed_copy(into: Path) -> Path:
    copy = into / "studio"
    copy.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(copy)], input=archive, check=True)
    return copy


def bare_path(into: Path) -> str:
    bin_dir = into / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").symlink_to(shutil.which("python3") or sys.executable)
    return str(bin_dir)


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    said = (done.stderr or done.stdout).strip().splitlines()
    return time.monotonic() - started, done.returncode, said[-1] if said else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compiler", action="store_true", help="a PATH without compilers, cmake or make")
    parser.add_argument("--cache", help="a pip cache directory to use (default: a new, empty one)")
    parser.add_argument("--keep", action="store_true", help="leave the scratch directory for a look")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="studio-setup-"))
    try:
        copy = committed_copy(scratch)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHON"))}
        env["PIP_CACHE_DIR"] = args.cache or str(scratch / "pip-cache")
        env["HOME"] = str(scratch / "home")
        if args.no_compiler:
            env["PATH"] = bare_path(scratch)
            env.pop("CC", None)
            env.pop("CXX", None)
        load_before = os.getloadavg()[0]
        print(f"machine: {os.cpu_count()} cores, load {load_before:.1f}; pip cache {env['PIP_CACHE_DIR']}")
        seconds, code, last = timed(["bash", "scripts/setup"], copy, env)
        print(f"scripts/setup: {seconds:.0f} s, exit {code}{(': ' + last) if code else ''}")
        if code == 0:
            shown = subprocess.run([str(copy / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
                                   capture_output=True, text=True)
            print(f"  into {copy / '.venv'} ({shown.stdout.split(' from ')[0]})")
        print(f"load after: {os.getloadavg()[0]:.1f}")
    finally:
        if args.keep:
            print(f"kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
