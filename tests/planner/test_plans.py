"""Dry-run plans for replayed machines: strategy, source line, key, packages, index, variables
(and the variables' scripts, sourced by real sh, fish and tcsh where those are installed)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import (
    KEYRING,
    PIN_CONTENT,
    Choices,
    PlanError,
    make_plan,
    release_of_package,
)
from core.install.runner import Runner
from core.knowledge.loader import load_knowledge
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
FINGERPRINT = "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C"
PYTORCH_72 = "https://download.pytorch.org/whl/rocm7.2"
ENV_IDS = [
    "env-file",
    "env-activate",
    "env-file-fish",
    "env-activate-fish",
    "env-file-csh",
    "env-activate-csh",
]


def plan_for(name: str, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


def step(plan: Plan, step_id: str) -> dict:
    for s in plan.steps:
        if s.id == step_id:
            return s.to_json()
    raise AssertionError(f"no step {step_id}: {[s.id for s in plan.steps]}")


def ids(plan: Plan) -> list[str]:
    return [s.id for s in plan.steps]


# (machine, strategy, torch index, torch packages, env, first step ids)
PIP_ONLY = [
    ("rx7900xtx-ubuntu2404-ready", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
    ("popos2204-rx6800-ready", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
    (
        "linuxmint21-rx6700xt",
        PYTORCH_72,
        ["torch==2.14.0+rocm7.2", "torchvision"],
        {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
    ),
    (
        "rx6600xt-ubuntu2404-override-set",
        PYTORCH_72,
        ["torch==2.14.0+rocm7.2", "torchvision"],
        {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
    ),
    ("debian12-w7900-ready", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
    ("fedora42-rx7900xtx", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
    ("rx6800xt-5700g-arch", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
    # the rocm7.2 wheels carry gfx1103 from torch 2.13 on (pytorch/pytorch#179653)
    ("phoenix-780m-arch-laptop", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
    (
        "strix-halo-8060s-fedora43",
        "https://download.pytorch.org/whl/rocm7.14",
        ["torch==2.14.1+rocm7.14", "torchvision"],
        {},
    ),
    (
        "igpu-first-raphael-rx7900xtx",
        PYTORCH_72,
        ["torch==2.14.0+rocm7.2", "torchvision"],
        {"HIP_VISIBLE_DEVICES": "1"},
    ),
    ("rx9070xt-x2-ubuntu2404-rocm711", PYTORCH_72, ["torch==2.14.0+rocm7.2", "torchvision"], {}),
]


@pytest.mark.parametrize(("machine", "index", "packages", "env"), PIP_ONLY, ids=lambda v: str(v))
def test_pip_only_plans(machine: str, index: str, packages: list[str], env: dict) -> None:
    plan = plan_for(machine)
    assert plan.strategy == "pip-only"
    assert plan.blocked is None
    assert plan.torch_index == index
    assert list(plan.torch_packages) == packages
    assert plan.env == {"PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True", **env}
    assert not [s for s in plan.steps if s.privileged and s.id != "groups" and s.consent is None]
    pip = step(plan, "pip-torch")["argv"]
    assert pip[-2:] == ["--index-url", index] and pip[3] == "install"
    assert ids(plan)[-7:] == [*ENV_IDS, "verify"]
    env_file = step(plan, "env-file")["file"]
    assert env_file["path"].endswith("/rocmate/venv/bin/rocmate-env.sh")
    for key, value in plan.env.items():
        assert f'export {key}="${{{key}-{value}}}"' in env_file["content"]
    assert not any(s.file and s.file.path.startswith("/etc/") for s in plan.steps)


@pytest.mark.parametrize(
    ("machine", "codename"),
    [
        ("rx7900xtx-ubuntu2404-ready", "noble"),
        ("popos2204-rx6800-ready", "jammy"),
        ("linuxmint21-rx6700xt", "jammy"),
        ("mi300x-x4-ubuntu2204", "jammy"),
    ],
)
def test_rocm_apt_plans(machine: str, codename: str) -> None:
    plan = plan_for(machine, strategy="rocm-apt")
    assert plan.strategy == "rocm-apt" and plan.rocm == "7.2"
    key = step(plan, "apt-keyring")
    assert key["privileged"] and key["key_fingerprint"] == FINGERPRINT
    assert key["file"] == {
        "path": KEYRING,
        "mode": "0644",
        "source_url": "https://repo.radeon.com/rocm/rocm.gpg.key",
    }
    source = step(plan, "apt-source")["file"]
    assert source["path"] == "/etc/apt/sources.list.d/rocm.list"
    assert source["content"] == (
        f"deb [arch=amd64 signed-by={KEYRING}] https://repo.radeon.com/rocm/apt/7.2 "
        f"{codename} main\n"
    )
    assert step(plan, "apt-pin")["file"]["content"] == PIN_CONTENT
    assert step(plan, "apt-update")["argv"] == ["apt-get", "update"]
    install = step(plan, "apt-install")["argv"]
    assert install == [
        "apt-get",
        "install",
        "-y",
        "--no-install-recommends",
        "rocm-hip-runtime",
        "rocminfo",
    ]
    order = ids(plan)
    assert order.index("apt-keyring") < order.index("apt-source") < order.index("apt-update")
    assert plan.torch_index == PYTORCH_72
    commands = [s.argv for s in plan.steps if s.argv]
    assert not [a for a in commands if a[0] in {"apt-key", "curl", "wget", "sh", "bash"}]


def test_rocm_apt_sdk_package_set() -> None:
    plan = plan_for("rx7900xtx-ubuntu2404-ready", strategy="rocm-apt", package_set="sdk")
    assert step(plan, "apt-install")["argv"][-3:] == [
        "rocm-hip-sdk",
        "rocminfo",
        "rocm-developer-tools",
    ]


def test_rocm_apt_refused_off_ubuntu() -> None:
    with pytest.raises(PlanError, match="Ubuntu"):
        plan_for("fedora42-rx7900xtx", strategy="rocm-apt")


def test_rocm_apt_on_focal_has_no_serving_release() -> None:
    with pytest.raises(PlanError, match=r"20\.04"):
        plan_for("ubuntu2004-kernel54-rx7900xtx", strategy="rocm-apt")


def test_wsl_plan() -> None:
    """ROCm 10.1's WSL route (resources/data/wsl.toml): the Core SDK, whose runtime package
    carries librocdxg; no amdgpu-install wsl use case (its package is gone from 7.0 on), no
    variable, no runtime swap."""
    plan = plan_for("wsl2-ubuntu2204-rx7900xtx-ready")
    assert plan.strategy == "wsl" and plan.rocm == "10.1"
    assert "URIs: https://stable.repo.amd.com/rocm/core/packages/ubuntu2204/\n" in step(
        plan, "apt-source")["file"]["content"]
    assert step(plan, "apt-install")["argv"][-1] == "amdrocm10.1-gfx1100"
    order = ids(plan)
    assert not {"amdgpu-install-wsl", "apt-source-amdgpu", "wsl-hsa-swap", "groups"} & set(order)
    assert "HSA_ENABLE_DXG_DETECTION" not in plan.env
    assert plan.torch_packages[0] == "torch[device-gfx1100]==2.14.0+rocm10.1.0"
    assert any("os-support.yaml" in n for n in plan.notes)


def test_wsl_72_is_the_rocdxg_route() -> None:
    """ROCm 7.2 in WSL as AMD's ROCDXG page does it: ROCm from repo.radeon.com, librocdxg built
    by the user, HSA_ENABLE_DXG_DETECTION=1 (before 7.13) and the wheel's runtime swapped."""
    plan = plan_for("wsl2-ubuntu2204-rx7900xtx-ready", rocm="7.2")
    assert plan.strategy == "wsl" and plan.rocm == "7.2"
    assert step(plan, "apt-source")["file"]["content"].endswith("rocm/apt/7.2 jammy main\n")
    assert step(plan, "apt-install")["argv"][-2:] == ["rocm-hip-runtime", "rocminfo"]
    order = ids(plan)
    assert "amdgpu-install-wsl" not in order and "apt-source-amdgpu" not in order
    assert order.index("pip-torch") < order.index("wsl-hsa-swap") < order.index("verify")
    assert step(plan, "wsl-hsa-swap")["argv"][-3:] == [
        "core.install.wsl_runtime_swap", "--venv", plan.venv]
    assert plan.env["HSA_ENABLE_DXG_DETECTION"] == "1"
    assert any("git clone https://github.com/ROCm/librocdxg.git" in n for n in plan.notes)
    assert plan.torch_index == PYTORCH_72


def _wsl_copy(tmp_path: Path, os_release: str | None = None, rx7600: bool = False) -> Path:
    """The WSL 2 RX 7900 XTX machine with another Ubuntu release, or its rocminfo turned into
    an RX 7600's (gfx1102, chip 0x7480)."""
    import shutil

    root = tmp_path / "wsl"
    shutil.copytree(MACHINES / "wsl2-ubuntu2204-rx7900xtx-ready", root, symlinks=True)
    if os_release is not None:
        (root / "files/etc/os-release").write_text(os_release)
    if rx7600:
        rocminfo = root / "commands/rocminfo.txt"
        text = rocminfo.read_text().replace("gfx1100", "gfx1102")
        text = text.replace("29772(0x744c)", "29824(0x7480)").replace("RX 7900 XTX", "RX 7600")
        rocminfo.write_text(text)
    return root


def _plan_at(root: Path, kb: object | None = None, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(root), probe_torch=False).facts
    return make_plan(facts, kb or load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


FOCAL = (
    'NAME="Ubuntu"\nVERSION_ID="20.04"\nVERSION="20.04.6 LTS (Focal Fossa)"\n'
    "VERSION_CODENAME=focal\nID=ubuntu\nID_LIKE=debian\nUBUNTU_CODENAME=focal\n"
)
NOBLE = FOCAL.replace("20.04.6", "24.04.1").replace("20.04", "24.04").replace(
    "Focal Fossa", "Noble Numbat").replace("focal", "noble")


def test_wsl_on_focal_has_no_serving_release(tmp_path: Path) -> None:
    """AMD's WSL routes serve Ubuntu 22.04, 24.04 and 26.04: none for a 20.04 WSL."""
    root = _wsl_copy(tmp_path, os_release=FOCAL)
    with pytest.raises(PlanError) as caught:
        _plan_at(root)
    message = str(caught.value)
    assert message == (
        "ROCm 10.1, ROCm 10.0, ROCm 7.2 for WSL is made for Ubuntu 22.04, 24.04 and 26.04, not "
        "Ubuntu 20.04: use one of those in WSL (for example wsl --install -d Ubuntu-26.04)"
    )


def test_wsl_on_noble_uses_its_codename(tmp_path: Path) -> None:
    root = _wsl_copy(tmp_path, os_release=NOBLE)
    plan = _plan_at(root)
    assert plan.strategy == "wsl" and plan.rocm == "10.1"
    assert "/ubuntu2404/" in step(plan, "apt-source")["file"]["content"]
    plan = _plan_at(root, rocm="7.2")
    assert step(plan, "apt-source")["file"]["content"].endswith("rocm/apt/7.2 noble main\n")


def test_wsl_refuses_a_card_the_release_does_not_list(tmp_path: Path) -> None:
    """An RX 7600 (gfx1102) is on no WSL list of AMD's (10.x's os-support.yaml, librocdxg's for
    7.2): the doctor's wsl-gpu-unsupported blocks the plan, in its words."""
    plan = _plan_at(_wsl_copy(tmp_path, rx7600=True))
    assert plan.blocked is not None and "gfx1102" in plan.blocked and not plan.steps


def test_wsl_follows_the_release_wsl_targets(tmp_path: Path) -> None:
    """Where a release names its WSL cards, only those get its WSL route: without gfx1100 on
    10.x's lists the plan falls back to 7.2, whose route (librocdxg 1.1.0) lists it."""
    import dataclasses

    kb = load_knowledge()
    releases = [
        dataclasses.replace(r, wsl_targets=("gfx1201", "gfx1200")) if r.version in ("10.0", "10.1")
        else r for r in kb.releases
    ]
    assert _plan_at(_wsl_copy(tmp_path), dataclasses.replace(kb, releases=releases)).rocm == "7.2"


def test_wsl_rocm_choice_without_a_wsl_route() -> None:
    with pytest.raises(PlanError, match=r"ROCm 7\.1 has no WSL route"):
        plan_for("wsl2-ubuntu2204-rx7900xtx-ready", rocm="7.1")


def test_groups_step_for_a_user_outside_render() -> None:
    plan = plan_for("not-in-render-group-ubuntu2204")
    groups = step(plan, "groups")
    assert groups["argv"][:3] == ["usermod", "-aG", "render,video"]
    assert groups["privileged"] and groups["after"] == "relogin"


def test_two_rocm_versions_removal_needs_consent() -> None:
    plan = plan_for("rocm-multiple-2x-rx7900xtx")
    removal = step(plan, "remove-old-rocm")
    assert removal["consent"] is False
    assert all("5.7" in name for name in removal["argv"][3:])
    agreed = plan_for("rocm-multiple-2x-rx7900xtx", remove_old=True)
    assert step(agreed, "remove-old-rocm")["consent"] is True
    # the terminal's plan says an unagreed removal is skipped, its command never as one to run
    from core.install.plan_text import render_plan

    def plain(text: str, *_: str) -> str:
        return text

    said = render_plan(plan, plain)
    assert "[skipped: --remove-old includes it]" in said
    assert "$ apt-get purge" not in said and "# not run: apt-get purge -y" in said
    agreed_said = render_plan(agreed, plain)
    assert "skipped" not in agreed_said and "$ apt-get purge -y" in agreed_said


@pytest.mark.parametrize(
    "machine",
    ["nvidia-only-desktop", "wsl1-ubuntu1604", "no-gpu-aspeed-server"],
)
def test_blocked_machines(machine: str) -> None:
    plan = plan_for(machine)
    assert plan.blocked and not plan.steps


def test_therock_strategy_and_rocm_choice() -> None:
    plan = plan_for("rx7900xtx-ubuntu2404-ready", strategy="therock")
    assert plan.preview and plan.torch_index == "https://rocm.nightlies.amd.com/whl-multi-arch/"
    assert list(plan.torch_packages) == ["torch[device-gfx1100]", "torchvision[device-gfx1100]"]
    older = plan_for("rx7900xtx-ubuntu2404-ready", rocm="6.4")
    assert older.torch_index == "https://download.pytorch.org/whl/rocm6.4"
    with pytest.raises(PlanError):
        plan_for("rx7900xtx-ubuntu2404-ready", rocm="9.9")


def test_release_of_package() -> None:
    assert release_of_package("6.2.41133.60200-66~22.04") == "6.2"
    assert release_of_package("5.7.1.50701-98~22.04") == "5.7"
    assert release_of_package("1.0") is None


def test_cli_dry_run_json_contract() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "core.cli",
            "install",
            "--dry-run",
            "--json",
            "--root",
            str(MACHINES / "linuxmint21-rx6700xt"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["schema"] == "rocmate.plan/1"
    assert data["strategy"] == "pip-only" and data["rocm"] == "7.2"
    assert data["torch_index"] == PYTORCH_72
    for s in data["steps"]:
        assert {"id", "privileged", "title", "explain"} <= set(s)
        assert ("argv" in s) != ("file" in s)


def test_planner_refuses_what_the_helper_would_refuse(tmp_path: Path) -> None:
    import shutil

    from core.install.planner import ubuntu_codename

    root = tmp_path / "m"
    shutil.copytree(MACHINES / "rx7900xtx-ubuntu2404-ready", root, symlinks=True)
    (root / "files/etc/os-release").write_text('NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="24.04"\n')
    facts = run_doctor(SnapshotSystem(root), probe_torch=False).facts
    assert ubuntu_codename(load_knowledge(), facts.platform) == "noble"  # from the version
    (root / "files/etc/os-release").write_text('NAME="Ubuntu"\nID=ubuntu\n')
    facts = run_doctor(SnapshotSystem(root), probe_torch=False).facts
    with pytest.raises(PlanError, match="cannot tell which Ubuntu"):
        make_plan(facts, load_knowledge(), Choices(strategy="rocm-apt"))
    user = json.loads((root / "user.json").read_text())
    (root / "user.json").write_text(json.dumps({**user, "name": "john.doe", "groups": ["x"]}))
    facts = run_doctor(SnapshotSystem(root), probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices())
    assert "groups" not in ids(plan) and any("john.doe" in n for n in plan.notes)


def test_per_node_override_when_several_amd_gpus_share_kfd(tmp_path: Path) -> None:
    from tests.diagnose.test_robustness import KFD, _build

    _build(tmp_path)  # an RX 6700 XT (gfx1031, KFD node 1) needing 10.3.0 ...
    node = tmp_path / KFD / "2"  # ... beside a Raphael iGPU (gfx1036) as KFD node 2
    node.mkdir(parents=True)
    (node / "properties").write_text(
        "cpu_cores_count 0\nsimd_count 4\nsimd_per_cu 2\ngfx_target_version 100306\n"
        "vendor_id 4098\ndevice_id 5710\nlocation_id 4352\ndomain 0\ndrm_render_minor 129\n"
    )
    facts = run_doctor(SnapshotSystem(tmp_path), probe_torch=False).facts
    assert [g.gfx for g in facts.gpus.amd] == ["gfx1031", "gfx1036"]
    plan = make_plan(facts, load_knowledge(), Choices())
    assert plan.env.get("HSA_OVERRIDE_GFX_VERSION_1") == "10.3.0"
    assert "HSA_OVERRIDE_GFX_VERSION" not in plan.env


def test_env_scripts_for_fish_and_csh() -> None:
    plan = plan_for("linuxmint21-rx6700xt")
    bin_dir = "/home/alice/.local/share/rocmate/venv/bin"
    header = "# Written by rocmate: variables this GPU needs.\n"
    expected = {
        "sh": 'export HSA_OVERRIDE_GFX_VERSION="${HSA_OVERRIDE_GFX_VERSION-10.3.0}"\n'
        'export PYTORCH_HIP_ALLOC_CONF="${PYTORCH_HIP_ALLOC_CONF-expandable_segments:True}"\n',
        "fish": 'set -q HSA_OVERRIDE_GFX_VERSION; or set -gx HSA_OVERRIDE_GFX_VERSION "10.3.0"\n'
        'set -q PYTORCH_HIP_ALLOC_CONF; or set -gx PYTORCH_HIP_ALLOC_CONF '
        '"expandable_segments:True"\n',
        "csh": 'if (! $?HSA_OVERRIDE_GFX_VERSION) setenv HSA_OVERRIDE_GFX_VERSION "10.3.0"\n'
        'if (! $?PYTORCH_HIP_ALLOC_CONF) setenv PYTORCH_HIP_ALLOC_CONF '
        '"expandable_segments:True"\n',
    }
    activates = {
        "sh": ("activate", ". "),
        "fish": ("activate.fish", "source "),
        "csh": ("activate.csh", "source "),
    }
    for shell, lines in expected.items():
        suffix = "" if shell == "sh" else f"-{shell}"
        script = f"{bin_dir}/rocmate-env.{shell}"
        written = step(plan, f"env-file{suffix}")
        assert written["kind"] == "file" and not written["privileged"]
        assert written["file"] == {"path": script, "mode": "0644", "content": header + lines}
        name, command = activates[shell]
        assert step(plan, f"env-activate{suffix}")["file"] == {
            "path": f"{bin_dir}/{name}",
            "mode": "0644",
            "content": f'{command}"{script}"\n',
            "append": True,
        }
    # Every plan that gets as far as the variables writes all three, the same ones.
    igpu = plan_for("igpu-first-raphael-rx7900xtx")
    assert 'or set -gx HIP_VISIBLE_DEVICES "1"\n' in step(igpu, "env-file-fish")["file"]["content"]
    assert 'setenv HIP_VISIBLE_DEVICES "1"\n' in step(igpu, "env-file-csh")["file"]["content"]
    assert ids(plan_for("wsl2-ubuntu2204-rx7900xtx-ready"))[-7:] == [*ENV_IDS, "verify"]


def _shell(shell: str, *values: str) -> object:
    """A parameter set that skips when the shell is not installed."""
    missing = shutil.which(shell) is None
    reason = f"{shell} is not installed (scripts/install-test-system-deps.sh adds it)"
    return pytest.param(shell, *values, id=shell, marks=pytest.mark.skipif(missing, reason=reason))


# (shell, how it loads the venv, what it needs first when not interactive)
SHELLS = [
    _shell("sh", ". bin/activate", ""),
    _shell("fish", "source bin/activate.fish", ""),
    # The stdlib's activate.csh reads $prompt, which a non-interactive tcsh does not set.
    _shell("tcsh", "source bin/activate.csh", 'set prompt=""; '),
]


@pytest.mark.parametrize("own", [False, True], ids=["plain", "own-value"])
@pytest.mark.parametrize(("shell", "activate", "first"), SHELLS)
def test_activated_venv_has_the_variables(
    tmp_path: Path, shell: str, activate: str, first: str, own: bool
) -> None:
    """A real venv, the plan's file steps run by the runner, then the shell activates it: the
    card's variables reach a child process (env's printenv, not tcsh's builtin one) and the
    venv itself is active. A value the shell already exports stays (as for rocmate's runs)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    plan = plan_for("linuxmint21-rx6700xt", venv=str(venv))
    env_steps = tuple(s for s in plan.steps if s.id.startswith("env-"))
    assert [s.id for s in env_steps] == ENV_IDS
    events: list[dict] = []
    runner = Runner(
        Plan(plan.strategy, plan.rocm, None, env_steps, env=plan.env),
        events.append,
        None,
        folder=tmp_path / "state",
    )
    assert asyncio.run(runner.run()), events
    keys = sorted(plan.env)
    assert keys == ["HSA_OVERRIDE_GFX_VERSION", "PYTORCH_HIP_ALLOC_CONF"]
    out = subprocess.run(
        [shell, "-c", f"{first}{activate}; /usr/bin/env printenv VIRTUAL_ENV {' '.join(keys)}"],
        cwd=venv,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
        | ({"HSA_OVERRIDE_GFX_VERSION": "11.0.0"} if own else {}),
    )
    assert out.returncode == 0, out.stderr
    expected = plan.env | ({"HSA_OVERRIDE_GFX_VERSION": "11.0.0"} if own else {})
    assert out.stdout.splitlines() == [str(venv), *(expected[k] for k in keys)]


@pytest.mark.parametrize(("shell", "name"), [_shell("fish", "fish"), _shell("tcsh", "csh")])
def test_env_script_alone_in_its_shell(tmp_path: Path, shell: str, name: str) -> None:
    plan = plan_for("igpu-first-raphael-rx7900xtx")
    script = tmp_path / f"rocmate-env.{name}"
    script.write_text(step(plan, f"env-file-{name}")["file"]["content"])
    out = subprocess.run(
        [shell, "-c", f'source "{script}"; echo $HIP_VISIBLE_DEVICES $PYTORCH_HIP_ALLOC_CONF'],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "1 expandable_segments:True\n"


@pytest.mark.parametrize("venv", ["relative/venv", '/tmp/a"$(id)', "/tmp/a`id`", "/tmp/a\nb",
                                  "/tmp/it's", "/tmp/a\\b", "/tmp/hi!"])
def test_an_environment_path_that_would_break_the_scripts_is_refused(venv: str) -> None:
    with pytest.raises(PlanError, match="must be an absolute path"):
        plan_for("linuxmint21-rx6700xt", venv=venv)
    assert plan_for("linuxmint21-rx6700xt", venv="/opt/my envs/rocm 7.2").steps  # spaces are fine


def test_no_group_step_where_the_device_nodes_are_open_to_everyone() -> None:
    """Fedora 42 with 0666 /dev/kfd and render nodes: usermod would change nothing (the doctor
    says nothing either); a 0660 machine still gets it."""
    assert "groups" not in ids(plan_for("fedora42-rx7900xtx"))
    assert ids(plan_for("not-in-render-group-ubuntu2204"))[0] == "groups"


def test_a_caveat_of_the_override_stays_in_the_plan() -> None:
    """The Steam Deck's "wrong numbers without any error" (overrides.toml, its sources) is in the
    doctor and, since the set-up cannot change it, in the plan's notes too (issue 33, item 2);
    a card without an override gets no such note."""
    plan = plan_for("steamdeck-steamos")
    assert any(n.startswith("With the override, still: On the Steam Deck's GPU") and
               "wrong numbers" in n for n in plan.notes)
    assert not any(n.startswith("With the override, still") for n in
                   plan_for("rx7900xtx-ubuntu2404-ready").notes)
