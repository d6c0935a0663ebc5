"""Finding the apps' Python environments (issue 34, item 4): on a recorded machine with
ComfyUI's CPU torch family, and on a throwaway home with the folder layouts of the apps in
resources/data/app_envs.toml; what the doctor says of each (`apps` in --json, the text's Apps
rows, the app-torch-cannot-reach finding with the repair command)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

from core.diagnose.context import Context
from core.diagnose.doctor import run_doctor
from core.diagnose.doctor_text import render_text
from core.diagnose.rules_apps import NO, NOT_CHECKED, check_app
from core.knowledge.app_envs import load_app_places
from core.knowledge.loader import load_knowledge
from core.probe.app_envs import find_app_envs
from core.system import LiveSystem, SnapshotSystem
from core.termstyle import Style

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
K34 = MACHINES / "k34-comfyui-cpu-torch-rx7900xtx"
COMFY = "/home/alice/ComfyUI/venv"
MATRIX = "/home/alice/StabilityMatrix/Packages/ComfyUI/venv"


def _venv(home: Path, folder: str, *members: str, python: str = "3.12") -> Path:
    """A venv as `python -m venv` leaves it, with ``members`` ("torch-2.5.1+cpu") installed."""
    env = home / folder
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python3").symlink_to("/usr/bin/python3")
    (env / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {python}.0\n")
    site = env / "lib" / f"python{python}" / "site-packages"
    site.mkdir(parents=True)
    for member in members:
        name, version = member.split("-", 1)
        info = site / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    for other in ("numpy-2.1.3", "pillow-11.0.0", "safetensors-0.4.5"):
        (site / f"{other}.dist-info").mkdir()
    return env


def test_the_recorded_machine_lists_comfyui_and_stability_matrix() -> None:
    system = SnapshotSystem(K34)
    apps = find_app_envs(system, "/home/alice")
    assert [(a.name, a.folder) for a in apps] == [
        ("ComfyUI", COMFY), ("Stability Matrix: ComfyUI", MATRIX)]
    comfy, matrix = apps
    assert comfy.python == f"{COMFY}/bin/python3"
    assert [(m.name, m.version, m.build.kind) for m in comfy.family] == [
        ("torch", "2.5.1+cpu", "cpu"), ("torchvision", "0.20.1+cpu", "cpu"),
        ("torchaudio", "2.5.1+cpu", "cpu")]
    assert comfy.build == "cpu"
    assert matrix.build == "rocm" and matrix.wheel_rocm == "6.0"
    assert "pytorch-triton-rocm" in [m.name for m in matrix.family]


def test_the_doctor_says_comfyui_cannot_reach_the_card_and_how_to_repair_it() -> None:
    report = run_doctor(SnapshotSystem(K34))
    by_folder = {a.env.folder: a for a in report.apps}
    assert (by_folder[COMFY].reaches, by_folder[COMFY].reason) == (NO, "cpu-build")
    assert (by_folder[MATRIX].reaches, by_folder[MATRIX].reason) == (NOT_CHECKED, "rocm-build")
    found = [f for f in report.findings if f.id == "app-torch-cannot-reach"]
    assert len(found) == 1  # ComfyUI's; the ROCm build is not called wrong
    assert found[0].severity == "warning"
    assert found[0].fix.startswith(f"rocmate install --repair {COMFY}/bin/python3   (")
    assert "2.5.1+cpu" in found[0].title and COMFY in found[0].detail
    assert report.verdict == "Ready after these fixes"

    data = json.loads(json.dumps(report.to_json()))
    apps = data["apps"]
    assert [a["reaches_gpu"] for a in apps] == ["no", "not-checked"]
    assert apps[0]["repair"] == f"rocmate install --repair {COMFY}/bin/python3"
    assert "repair" not in apps[1]
    assert apps[0]["torch"] == "2.5.1+cpu" and apps[0]["build"] == "cpu"

    text = render_text(report, Style(False))
    assert "Apps     ComfyUI: PyTorch 2.5.1+cpu - cannot use the GPU (a CPU-only build)" in text
    assert f"in {MATRIX}" in text


def test_a_machine_without_apps_has_no_apps_key() -> None:
    """Additive: a doctor answer where no app was found is as before (no `apps`)."""
    report = run_doctor(SnapshotSystem(MACHINES / "rx7900xtx-cpu-torch"))
    assert report.apps == ()
    assert "apps" not in report.to_json()
    assert "Apps" not in render_text(report, Style(False))


def test_every_apps_layout_is_found_in_a_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _venv(home, "ComfyUI/.venv", "torch-2.7.1+rocm6.3", "torchvision-0.22.1+rocm6.3")
    _venv(home, "comfy/ComfyUI/.venv", "torch-2.9.1")
    _venv(home, "stable-diffusion-webui/venv", "torch-2.1.2+cu121")
    _venv(home, "stable-diffusion-webui-forge/venv", "torch-2.3.1+cu121", python="3.10")
    _venv(home, "stable-diffusion-webui-reForge/venv", "torch-2.4.1+rocm6.1")
    _venv(home, "automatic/venv")  # SD.Next's old name, PyTorch not installed yet
    _venv(home, "invokeai/.venv", "torch-2.4.1+rocm6.1", "torchvision-0.19.1+rocm6.1")
    _venv(home, "StabilityMatrix/Data/Packages/reForge/venv", "torch-2.5.1+rocm6.2")
    _venv(home, "pinokio/api/comfy.git/app/env", "torch-2.6.0+rocm6.2.4", "xformers-0.0.29")
    _venv(home, "text-generation-webui/installer_files/env", "torch-2.6.0+cpu", python="3.11")
    # not environments: no bin/python, a dot folder for the wildcard, a file
    (home / "sdnext" / "venv" / "lib").mkdir(parents=True)
    (home / "pinokio" / "api" / ".cache" / "env" / "bin").mkdir(parents=True)
    (home / "pinokio" / "api" / ".cache" / "env" / "bin" / "python3").touch()
    (home / "StabilityMatrix" / "Data" / "Packages" / "notes.txt").write_text("x")

    apps = find_app_envs(LiveSystem(), str(home))
    found = {a.name: (a.folder[len(str(home)) + 1:], a.build) for a in apps}
    assert found == {
        "ComfyUI": ("ComfyUI/.venv", "rocm"),
        "ComfyUI (comfy-cli)": ("comfy/ComfyUI/.venv", "pypi"),
        "Stable Diffusion web UI (AUTOMATIC1111)": ("stable-diffusion-webui/venv", "cuda"),
        "Stable Diffusion WebUI Forge": ("stable-diffusion-webui-forge/venv", "cuda"),
        "Stable Diffusion WebUI reForge": ("stable-diffusion-webui-reForge/venv", "rocm"),
        "SD.Next": ("automatic/venv", "missing"),
        "InvokeAI": ("invokeai/.venv", "rocm"),
        "Stability Matrix: reForge": ("StabilityMatrix/Data/Packages/reForge/venv", "rocm"),
        "Pinokio: comfy.git": ("pinokio/api/comfy.git/app/env", "rocm"),
        "text-generation-webui": ("text-generation-webui/installer_files/env", "cpu"),
    }
    pinokio = next(a for a in apps if a.app == "pinokio")
    assert [m.name for m in pinokio.family] == ["torch", "xformers"]
    assert pinokio.wheel_rocm == "6.2.4"
    assert {p.id for p in load_app_places()} >= {a.app for a in apps}


def test_a_rocm_build_without_the_cards_code_is_a_no_with_the_reason(tmp_path: Path) -> None:
    """The RX 9070 XT (gfx1201) and an app holding 2.5.1+rocm6.2, whose wheels carry no gfx1201
    (torch.toml's arch list for rocm6.2); the same card with a 2.9 build of rocm6.4 is only
    "not checked"; a CUDA build is a "no" whatever its index."""
    home = tmp_path / "home"
    _venv(home, "ComfyUI/venv", "torch-2.5.1+rocm6.2", "torchvision-0.20.1+rocm6.2")
    _venv(home, "invokeai/.venv", "torch-2.9.1+rocm6.4")
    _venv(home, "stable-diffusion-webui/venv", "torch-2.5.1+cu124")
    facts = run_doctor(SnapshotSystem(MACHINES / "rx9070xt-torch-arch-missing")).facts
    facts = replace(facts, apps=find_app_envs(LiveSystem(), str(home)))
    ctx = Context(facts, load_knowledge())
    checks = {c.env.app: check_app(ctx, c.env) for c in
              (check_app(ctx, env) for env in facts.apps)}
    comfy = checks["comfyui"]
    assert (comfy.reaches, comfy.reason, comfy.gfx) == (NO, "arch-missing", "gfx1201")
    assert "gfx1100" in comfy.targets and "gfx1201" not in comfy.targets
    assert "gfx1201" in comfy.why() and comfy.repairable
    assert (checks["invokeai"].reaches, checks["invokeai"].reason) == (NOT_CHECKED, "rocm-build")
    assert (checks["a1111"].reaches, checks["a1111"].reason) == (NO, "cuda-build")


def test_no_amd_card_no_verdict_from_the_build(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _venv(home, "ComfyUI/venv", "torch-2.5.1+cu124")
    facts = run_doctor(SnapshotSystem(MACHINES / "nvidia-only-desktop")).facts
    facts = replace(facts, apps=find_app_envs(LiveSystem(), str(home)))
    check = check_app(Context(facts, load_knowledge()), facts.apps[0])
    assert (check.reaches, check.reason, check.repairable) == (NOT_CHECKED, "no-card", False)


def test_discovery_is_quick_on_a_full_home(tmp_path: Path) -> None:
    """Every place of the table filled, each venv with 200 distributions: discovery lists a
    few folders and stats a few paths. The budget is well under 50 ms on a normal home; the
    bound here leaves room for a loaded test machine."""
    home = tmp_path / "home"
    for folder in ("ComfyUI/venv", "stable-diffusion-webui/venv", "invokeai/.venv",
                   "StabilityMatrix/Packages/ComfyUI/venv", "pinokio/api/a/app/env"):
        env = _venv(home, folder, "torch-2.5.1+cpu", "torchvision-0.20.1+cpu")
        site = next((env / "lib").iterdir()) / "site-packages"
        for i in range(200):
            (site / f"package{i}-1.0.dist-info").mkdir()
    for i in range(30):  # other folders in the home are never listed
        (home / f"folder{i}").mkdir()
    system = LiveSystem()
    find_app_envs(system, str(home))  # load the tables once
    start = time.perf_counter()
    for _ in range(10):
        apps = find_app_envs(system, str(home))
    seconds = (time.perf_counter() - start) / 10
    assert len(apps) == 5
    print(f"app discovery: {seconds * 1000:.2f} ms for 5 environments")
    assert seconds < 0.05 * (4 if os.environ.get("CI") else 2)
