"""scripts/setup on a machine without a compiler: one clear sentence and exit 2 before anything is
installed, never pip's wall of build errors; and a set-up already done needs no compiler at all."""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bench_setup.py"


def bare_path(tmp_path: Path) -> str:
    """A PATH holding only the tools scripts/setup needs and python3, made as bench/bench_setup.py makes it."""
    spec = importlib.util.spec_from_file_location("bench_setup", BENCH)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = bench.bare_path(tmp_path)
    for tool in ("bash", "sha256sum", "cut", "grep", "find"):
        if not (Path(path) / tool).exists():
            pytest.skip(f"{tool} is not on this machine")
    return path


def scratch_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "studio"
    (copy / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "requirements.lock", "scripts/setup"):
        shutil.copy2(ROOT / name, copy / name)
    return copy


def run_setup(copy: Path, path: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {"PATH": path, "HOME": str(tmp_path / "home"), "PIP_CACHE_DIR": str(tmp_path / "pip-cache"),
           "LANG": "C.UTF-8"}
    return subprocess.run(["bash", str(copy / "scripts" / "setup")], env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_no_compiler_on_a_fresh_machine_is_one_clear_message(tmp_path):
    copy = scratch_copy(tmp_path)
    started = time.monotonic()
    done = run_setup(copy, bare_path(tmp_path), tmp_path)
    took = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    message = done.stderr.strip()
    assert message.startswith("scripts/setup: the embedded model's runtime, llama-cpp-python==")
    assert "C++ compiler" in message and "apt-get install build-essential" in message
    assert message.count("\n") == 0, "one sentence, not a log"
    assert "Traceback" not in done.stderr and "Failed to build" not in done.stderr
    assert not (copy / ".venv").exists(), "nothing is installed before the compiler is found missing"
    assert took < 30


def test_a_setup_already_done_needs_no_compiler(tmp_path):
    copy = scratch_copy(tmp_path)
    venv_bin = copy / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(sys.executable)
    digest = hashlib.sha256(b"".join((copy / name).read_bytes()
                                     for name in ("pyproject.toml", "requirements.lock", "scripts/setup")))
    (copy / ".venv" / ".studio-setup").write_text(digest.hexdigest()[:16] + "\n")
    done = run_setup(copy, bare_path(tmp_path), tmp_path)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_lock_pins_what_the_studio_patches_and_compares():
    lock = {line.split("==")[0]: line.split("==")[1] for line in (ROOT / "requirements.lock").read_text().splitlines()
            if line and not line.startswith("#")}
    for name in ("reportlab", "rich", "textual", "litellm", "llama-cpp-python"):
        assert name in lock, f"requirements.lock has no {name}: run scripts/lock"
    assert lock["litellm"] not in ("1.82.7", "1.82.8")


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the x86 extensions are chosen on x86-64 only")
def test_the_build_turns_on_only_the_extensions_this_cpu_has(tmp_path):
    """A CPU without AVX2 (a Sandy Bridge, an older Atom) gets a build it can run, not one that dies with
    an illegal instruction at the first token; a CPU with them keeps the fast paths."""
    def chosen(flags: str) -> set[str]:
        cpuinfo = tmp_path / "cpuinfo"
        cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n")
        done = subprocess.run(["bash", str(ROOT / "scripts" / "setup"), "--cmake-args"], capture_output=True,
                              text=True, timeout=30, env={**os.environ, "STUDIO_CPUINFO": str(cpuinfo)})
        assert done.returncode == 0, done.stderr
        return set(done.stdout.split())

    old = chosen("fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt avx")
    assert {"-DGGML_AVX=ON", "-DGGML_AVX2=OFF", "-DGGML_FMA=OFF", "-DGGML_F16C=OFF", "-DGGML_BMI2=OFF"} <= old
    assert {"-DGGML_NATIVE=OFF", "-DGGML_OPENMP=OFF"} <= old
    new = chosen("fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma f16c bmi2 avx512f")
    assert {"-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON", "-DGGML_AVX512=OFF"} <= new


def test_the_lock_satisfies_every_requirement_in_pyproject():
    """A requirement changed in pyproject.toml (a pin moved, a range raised, a package added) without
    scripts/lock run again would make scripts/setup refuse to resolve; this says so first."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [*pyproject["project"]["dependencies"], *sum(pyproject["project"]["optional-dependencies"].values(), [])]
    lock = {canonicalize_name(name): version for name, version in
            (line.split("==", 1) for line in (ROOT / "requirements.lock").read_text().splitlines()
             if line and not line.startswith("#"))}
    unmet = []
    for text in wanted:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        have = lock.get(canonicalize_name(requirement.name))
        if have is None or not requirement.specifier.contains(have, prereleases=True):
            unmet.append(f"{text} (the lock has {have or 'none'})")
    assert not unmet, "pyproject.toml asks for " + "; ".join(unmet) + ": run scripts/lock and commit requirements.lock"


def test_a_c_compiler_without_a_cpp_one_is_named(tmp_path):
    copy = scratch_copy(tmp_path)
    path = bare_path(tmp_path)
    cc = tmp_path / "bin" / "cc"
    cc.write_text("#!/bin/sh\nexit 1\n")
    cc.chmod(0o755)
    done = run_setup(copy, path, tmp_path)
    assert done.returncode == 2
    assert "this PATH has no C++ compiler (looked for" in done.stderr
