"""Every string of every real plan's root steps, made hostile: the helper refuses each one, and
refusing runs nothing and writes nothing.

The plans are the planner's own (core.install.planner.make_plan) for every replayed machine
(tests/fixtures/machines/) and every choice that yields root steps (strategies rocm-apt and wsl,
the runtime and sdk package sets, with and without --remove-old), turned into what the runner
sends (Runner._prepared: the privileged steps the user consented to, each keyring with the key's
bytes as ``content_b64``). Two substitutions make a plan acceptable on the test systems, nothing
else is changed: the key is the synthetic test key (tests/install/support.py; its fingerprint
replaces AMD's in ``key_fingerprint`` and is trusted by the test policy), and the user of
``usermod`` is the test systems' account ``tester``. The unmutated plans are the control: each
one must be accepted (test_real_plans_are_accepted).

Then one string at a time is mutated (every string of every step: id, title, explain, kind,
after, each argv element, and the file's path, mode, content, content_b64 and source_url, and
key_fingerprint; the helper acts on some and only checks others, such as a keyring's
source_url), in these families (ledger families "plan string: ..."):

* shell metacharacters: ``;``, ``$(...)``, backticks, ``|``, ``&&`` with a command after them;
* '..' path segments: ``/../../../tmp/PWNED`` after the value, ``/../x/`` inside it;
* NUL: U+0000 at the end and in the middle (JSON-escaped, as a JSON encoder sends it);
* newline: at the end alone, followed by a command, and in the middle;
* 5,000 characters: the value padded to 5,000;
* other host: each URL's host replaced by another, with user info, a look-alike, an address;
* apt options: the value replaced by ``-oAPT::Get::AllowUnauthenticated=true``, by
  ``-o APT::...`` (one string), by ``--allow-unauthenticated``, or given a leading ``-``; and
  for argv lists, ``-o APT::...`` or ``--allow-unauthenticated`` inserted as extra elements.

Fields and mutations the helper legitimately accepts (asserted accepted, so the table cannot
drift; never counted as hostile):

* ``title`` and ``explain``: text shown to the user, never run, written or parsed (the helper
  only echoes the title in its JSON events, escaped). Shell metacharacters, '..', other hosts
  and apt options are harmless there; ``explain`` may also span lines. What the helper refuses
  in them (a control character, NUL, a newline in the one-line title, more than 300 or 4,000
  characters) is counted.
* the ``content`` of an apt source file followed by one more newline: a blank line, which apt
  ignores (the deb822 reader strips it; the one-line reader skips empty lines).

One more family, "retired verb: amdgpu-install": AMD's installer was a verb of the helper until
no route planned it (issue 33/3, WSL moved to librocdxg). Its once valid forms (the old WSL call,
``-y --usecase=rocm``) and hostile ones (``--uninstall``, an unknown use case, an absolute path)
go into every real plan, in place of each command step's argv and as a step of their own at the
end (where the old WSL plan ran it): each must be refused as a program outside the table.
And its sibling, "retired verb: what only its route needed": the packages amdgpu-install and
hsa-runtime-rocr4wsl-amdgpu (alone, in place of each command step's argv and as a step of their
own, and added to each real ``apt-get install`` step), the amdgpu.list / amdgpu.sources files
(as a step of their own and in place of each source step), and AMD's amdgpu repository in
rocmate's own rocm.list (in place of each source step): each refused for its own reason.
And "allow-list: packages no plan installs": each name of test_helper_hostile.py's
UNPLANNED_PACKAGES (amdgpu-dkms, kernel headers and modules, gnupg, ca-certificates, ROCm names
no route asks for), added to each real ``apt-get install`` step and as a step of its own: each
refused as off the allow-list (core.install.helper.policy.INSTALLABLE: only what plans install).

Every mutation is checked in-process (``check_input`` on a fake system, no root needed); a
sample, one mutation of each family for each kind of field, is also sent for real, as root,
inside a throwaway Debian root: ``--check`` exits 2 with the same reason, and a real run under
the audit hook (tests/install/audit_run.py) is refused having started no process and written no
file (tests/install/test_helper_hostile.py's ``_assert_runs_nothing``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.install.helper.target import Policy, Target
from core.install.helper.validate import check_input
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.install.runner import Runner
from core.knowledge.loader import load_knowledge
from core.operations.setup import plan_facts
from tests.conftest import machine_dirs
from tests.faults.ledger import Ledger
from tests.install.support import (
    TESTER,
    TRUSTED_FPR,
    TRUSTED_KEY,
    copy_root,
    trusting_policy,
)
from tests.install.test_helper_hostile import (
    UNPLANNED_PACKAGES,
    Case,
    _assert_runs_nothing,
    _prepared_root,
    add_system_files,
    fake_system,
)

STRATEGIES = ("rocm-apt", "wsl")
"""The strategies with root steps (pip-only and therock install nothing as root)."""
SCHEMA = "rocmate.plan/1"
OVERSIZE = 5000
COMMAND = "touch /tmp/PWNED"

# --------------------------------------------------------------------------------------------
# the mutations


@dataclass(frozen=True)
class Mutation:
    """One way to make a string hostile."""

    family: str
    name: str
    apply: Callable[[str], str | None]
    """The new value; None where the mutation does not apply (no URL to change)."""


def _suffix(value: str, tail: str) -> str:
    """``tail`` at the end of ``value``, before its final newline (a file's last line)."""
    if value.endswith("\n"):
        return value[:-1] + tail + "\n"
    return value + tail


def _middle(value: str, insert: str) -> str:
    half = len(value) // 2
    return value[:half] + insert + value[half:]


def _inner_dotdot(value: str) -> str:
    """``/a/b/c`` becomes ``/a/b/../b/c`` (the same place, through '..'); ``x``: ``../x``."""
    slash = value.rfind("/")
    if slash <= 0:
        return "../" + value
    head = value[:slash]
    return head + "/../" + head.rsplit("/", 1)[-1] + value[slash:]


URL_HOST = re.compile(r"(https?://)([^/\s]+)")


def _other_host(host: Callable[[str], str]) -> Callable[[str], str | None]:
    def apply(value: str) -> str | None:
        if not URL_HOST.search(value):
            return None
        return URL_HOST.sub(lambda m: m[1] + host(m[2]), value)
    return apply


SHELL = "plan string: shell metacharacters"
DOTDOT = "plan string: '..' path segments"
NUL = "plan string: NUL"
NEWLINE = "plan string: newline"
LONG = "plan string: 5,000 characters"
HOST = "plan string: other host"
APT = "plan string: apt options"
FAMILIES = (SHELL, DOTDOT, NUL, NEWLINE, LONG, HOST, APT)

MUTATIONS = (
    Mutation(SHELL, "semicolon", lambda v: _suffix(v, f";{COMMAND}")),
    Mutation(SHELL, "dollar-paren", lambda v: _suffix(v, f"$({COMMAND})")),
    Mutation(SHELL, "backticks", lambda v: _suffix(v, f"`{COMMAND}`")),
    Mutation(SHELL, "pipe", lambda v: _suffix(v, f"|{COMMAND}")),
    Mutation(SHELL, "and-and", lambda v: _suffix(v, f"&&{COMMAND}")),
    Mutation(DOTDOT, "climb-out", lambda v: _suffix(v, "/../../../tmp/PWNED")),
    Mutation(DOTDOT, "inner", _inner_dotdot),
    Mutation(NUL, "end", lambda v: _suffix(v, "\x00")),
    Mutation(NUL, "middle", lambda v: _middle(v, "\x00")),
    Mutation(NEWLINE, "end", lambda v: v + "\n"),
    Mutation(NEWLINE, "then-command", lambda v: _suffix(v, f"\n{COMMAND}")),
    Mutation(NEWLINE, "middle", lambda v: _middle(v, "\n")),
    Mutation(LONG, "padded", lambda v: _suffix(v, "A" * max(1, OVERSIZE - len(v)))),
    Mutation(HOST, "evil", _other_host(lambda h: "evil.example")),
    Mutation(HOST, "user-info", _other_host(lambda h: f"{h}@evil.example")),
    Mutation(HOST, "look-alike", _other_host(lambda h: f"{h}.evil.example")),
    Mutation(HOST, "address", _other_host(lambda h: "203.0.113.7")),
    Mutation(APT, "o-option", lambda v: "-oAPT::Get::AllowUnauthenticated=true"),
    Mutation(APT, "o-option-spaced", lambda v: "-o APT::Get::AllowUnauthenticated=true"),
    Mutation(APT, "allow-unauthenticated", lambda v: "--allow-unauthenticated"),
    Mutation(APT, "leading-dash", lambda v: "-" + v),
)
ARGV_INSERTS = (
    ("insert-o", ["-o", "APT::Get::AllowUnauthenticated=true"]),
    ("insert-allow-unauthenticated", ["--allow-unauthenticated"]),
)
"""apt options given as extra argv elements, at every position after the program."""

TEXT_HARMLESS = frozenset({SHELL, DOTDOT, HOST, APT})


def harmless(step: dict[str, Any], field: tuple[str | int, ...], mutation: Mutation) -> bool:
    """The mutations the helper legitimately accepts (the module docstring says why)."""
    if field == ("title",):
        return mutation.family in TEXT_HARMLESS
    if field == ("explain",):
        return mutation.family in TEXT_HARMLESS | {NEWLINE}
    if field == ("file", "content") and step["file"]["path"].startswith("/etc/apt/sources.list.d/"):
        return mutation.family == NEWLINE and mutation.name == "end"
    return False


# --------------------------------------------------------------------------------------------
# the real plans


def _as_sent(plan: Plan, folder: Path) -> list[dict[str, Any]]:
    """The root steps as the runner sends them (its own code), with the test key and user."""
    runner = Runner(plan, lambda event: None, None, folder=folder, fetch=lambda url: TRUSTED_KEY)
    steps = []
    for step in plan.steps:
        if not step.privileged or step.consent is False:
            continue
        data = runner._prepared(step)
        if "key_fingerprint" in data:
            data["key_fingerprint"] = TRUSTED_FPR
        if data.get("argv", [None])[0] == "usermod":
            data["argv"][-1] = TESTER
        steps.append(data)
    return steps


def real_plans(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each distinct root block the planner makes for the replayed machines, by where from."""
    kb = load_knowledge()
    found: dict[str, list[dict[str, Any]]] = {}
    seen: set[str] = set()
    for machine in machine_dirs():
        facts = plan_facts(str(machine))
        for strategy, packages, remove_old in itertools.product(
            STRATEGIES, ("runtime", "sdk"), (False, True)
        ):
            choices = Choices(strategy=strategy, package_set=packages, remove_old=remove_old)
            try:
                plan = make_plan(facts, kb, choices)
            except PlanError:
                continue
            steps = _as_sent(plan, folder)
            key = json.dumps(steps, sort_keys=True)
            if steps and key not in seen:
                seen.add(key)
                where = f"{machine.name} --strategy {strategy} --packages {packages}"
                found[where + (" --remove-old" if remove_old else "")] = steps
    return found


def _fields(step: dict[str, Any]) -> Iterator[tuple[str | int, ...]]:
    """The path of every string in a step (argv elements by index, the file's by key)."""
    for key, value in step.items():
        if isinstance(value, str):
            yield (key,)
        elif isinstance(value, list):
            yield from ((key, i) for i, item in enumerate(value) if isinstance(item, str))
        elif isinstance(value, dict):
            yield from ((key, k) for k, v in value.items() if isinstance(v, str))


def _get(step: dict[str, Any], field: tuple[str | int, ...]) -> Any:
    value: Any = step
    for part in field:
        value = value[part]
    return value


def _with(step: dict[str, Any], field: tuple[str | int, ...], new: Any) -> dict[str, Any]:
    changed = json.loads(json.dumps(step))
    holder = _get(changed, field[:-1])
    holder[field[-1]] = new
    return changed


def field_class(step: dict[str, Any], field: tuple[str | int, ...]) -> str:
    """The kind of field, the same in every plan (the sample sent for real is one per kind)."""
    if field[0] == "argv":
        argv = step["argv"]
        return "argv of " + " ".join(argv[:2] if argv[0] == "apt-get" else argv[:1])
    if field == ("file", "content"):
        return "content of " + step["file"]["path"].rsplit(".", 1)[-1].rsplit("/", 1)[0]
    return ".".join(str(part) for part in field)


@dataclass(frozen=True)
class Mutant:
    """One mutated plan."""

    family: str
    label: str
    """where from: the step, the field, the mutation."""
    sample_key: str
    """family and kind of field: the first mutant of each is also sent for real."""
    payload: bytes
    harmless: bool


def mutants(plans: dict[str, list[dict[str, Any]]]) -> list[Mutant]:
    """Every mutation of every string of every step, each (step, field, mutation) once."""
    found: list[Mutant] = []
    done: set[tuple[str, tuple[str | int, ...], str]] = set()
    for steps in plans.values():
        for index, step in enumerate(steps):
            step_key = json.dumps(step, sort_keys=True)
            changes: list[tuple[tuple[str | int, ...], Mutation | None, str, Any]] = []
            for field in _fields(step):
                for each in MUTATIONS:
                    new = each.apply(_get(step, field))
                    if new is not None:
                        changes.append((field, each, f"{each.family}: {each.name}", new))
            if "argv" in step:
                for (name, extra), at in itertools.product(ARGV_INSERTS,
                                                           range(1, len(step["argv"]) + 1)):
                    argv = step["argv"][:at] + extra + step["argv"][at:]
                    changes.append((("argv",), None, f"{APT}: {name}@{at}", argv))
            for field, mutation, name, new in changes:
                if (step_key, field, name) in done:
                    continue
                done.add((step_key, field, name))
                family = mutation.family if mutation else APT
                where = field_class(step, field) if mutation else "argv list of " + " ".join(
                    step["argv"][:2])
                mutated = [*steps[:index], _with(step, field, new), *steps[index + 1:]]
                found.append(Mutant(
                    family=family,
                    label=f"{step['id']} {'.'.join(map(str, field))} {name.split(': ')[-1]}",
                    sample_key=f"{family} / {where}",
                    payload=json.dumps({"schema": SCHEMA, "steps": mutated}).encode(),
                    harmless=mutation is not None and harmless(step, field, mutation),
                ))
    return found


RETIRED = "retired verb: amdgpu-install"
AMDGPU_FORMS = {
    "once valid wsl": ["amdgpu-install", "-y", "--usecase=wsl,rocm", "--no-dkms"],
    "once valid rocm": ["amdgpu-install", "-y", "--usecase=rocm"],
    "uninstall": ["amdgpu-install", "-y", "--usecase=rocm", "--uninstall"],
    "unknown use case": ["amdgpu-install", "-y", "--usecase=evil"],
    "absolute path": ["/usr/bin/amdgpu-install", "-y", "--usecase=rocm"],
}


def retired_mutants(plans: dict[str, list[dict[str, Any]]]) -> list[Mutant]:
    """Each amdgpu-install form in each real plan: in place of each command step's argv, and
    as a root step of its own after the plan's last one; each distinct plan once."""
    found: list[Mutant] = []
    seen: set[bytes] = set()
    for steps in plans.values():
        for name, argv in AMDGPU_FORMS.items():
            own = {"id": "amdgpu-install-wsl", "privileged": True, "kind": "command",
                   "title": "Install AMD's WSL runtime", "explain": "", "argv": argv}
            variants = [(f"{step['id']} argv", [*steps[:i], {**step, "argv": argv},
                                                *steps[i + 1:]])
                        for i, step in enumerate(steps) if "argv" in step]
            variants.append(("own step", [*steps, own]))
            for where, mutated in variants:
                payload = json.dumps({"schema": SCHEMA, "steps": mutated}).encode()
                if payload not in seen:
                    seen.add(payload)
                    found.append(Mutant(RETIRED, f"{where} {name}", f"{RETIRED} / {name}",
                                        payload, harmless=False))
    return found


def _retired_reason(reasons: list[str]) -> str | None:
    """The refusal of the amdgpu-install step itself (other steps may be refused too)."""
    return next((r for r in reasons if "unknown verb" in r and "amdgpu-install'" in r), None)


RETIRED_ROUTE = "retired verb: what only its route needed"
NOT_ALLOWED = "is not on the allow-list"
NOT_OURS = "is not one of rocmate's files"
AMDGPU_REPOSITORY = "https://repo.radeon.com/amdgpu/6.4/ubuntu"
ROUTE_PACKAGES = {
    "install amdgpu-install": (
        ["apt-get", "install", "-y", "amdgpu-install"], "package 'amdgpu-install' " + NOT_ALLOWED),
    "install the WSL runtime": (
        ["apt-get", "install", "-y", "--no-install-recommends", "hsa-runtime-rocr4wsl-amdgpu"],
        "package 'hsa-runtime-rocr4wsl-amdgpu' " + NOT_ALLOWED),
}
"""The route's packages as a command of their own (each also added to each real install)."""


def _amdgpu_line(keyring: str = "/etc/apt/keyrings/rocm.gpg",
                 uri: str = AMDGPU_REPOSITORY) -> str:
    return f"deb [arch=amd64 signed-by={keyring}] {uri} jammy main\n"


ROUTE_FILES = {
    "amdgpu.list": ("/etc/apt/sources.list.d/amdgpu.list", _amdgpu_line(),
                    "/etc/apt/sources.list.d/amdgpu.list " + NOT_OURS),
    "amdgpu.sources": (
        "/etc/apt/sources.list.d/amdgpu.sources",
        f"Types: deb\nURIs: {AMDGPU_REPOSITORY}\nSuites: jammy\nComponents: main\n"
        "Architectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.gpg\n",
        "/etc/apt/sources.list.d/amdgpu.sources " + NOT_OURS),
}
"""The route's source files (as a step of their own, and in place of each source step)."""
REPOSITORY_REASON = f"URI {AMDGPU_REPOSITORY} is not an allowed repository"


def _file_step(path: str, content: str) -> dict[str, Any]:
    return {"id": "apt-source-amdgpu", "privileged": True, "kind": "file",
            "title": "Add AMD's amdgpu repository", "explain": "",
            "file": {"path": path, "content": content, "mode": "0644"}}


def route_mutants(plans: dict[str, list[dict[str, Any]]]) -> list[tuple[Mutant, str]]:
    """What only the amdgpu-install route asked for, in each real plan, with the reason each
    must be refused for; each distinct plan once."""
    found: list[tuple[Mutant, str]] = []
    seen: set[bytes] = set()

    def add(name: str, where: str, steps: list[dict[str, Any]], reason: str) -> None:
        payload = json.dumps({"schema": SCHEMA, "steps": steps}).encode()
        if payload not in seen:
            seen.add(payload)
            found.append((Mutant(RETIRED_ROUTE, f"{where} {name}", f"{RETIRED_ROUTE} / {name}",
                                 payload, harmless=False), reason))

    for steps in plans.values():
        for name, (argv, reason) in ROUTE_PACKAGES.items():
            own = {"id": "apt-install-amdgpu-install", "privileged": True, "kind": "command",
                   "title": "Install AMD's installer", "explain": "", "argv": argv}
            add(name, "own step", [*steps, own], reason)
            for i, step in enumerate(steps):
                if "argv" not in step:
                    continue
                add(name, f"{step['id']} argv", [*steps[:i], {**step, "argv": argv},
                                                  *steps[i + 1:]], reason)
                if step["argv"][:2] == ["apt-get", "install"]:
                    more = {**step, "argv": [*step["argv"], argv[-1]]}
                    add(name, f"{step['id']} plus", [*steps[:i], more, *steps[i + 1:]], reason)
        sources = [i for i, step in enumerate(steps)
                   if step.get("file", {}).get("path", "").startswith("/etc/apt/sources.list.d/")]
        for name, (path, content, reason) in ROUTE_FILES.items():
            add(name, "own step", [*steps, _file_step(path, content)], reason)
            for i in sources:
                add(name, f"{steps[i]['id']} file", [*steps[:i], _file_step(path, content),
                                                      *steps[i + 1:]], reason)
        for i in sources:
            step = steps[i]
            if step["file"]["path"].endswith(".list"):
                keyring = re.search(r"signed-by=(\S+)\]", step["file"]["content"])
                assert keyring, step
                content = _amdgpu_line(keyring[1])
            else:  # deb822: the amdgpu repository's URI in place of the plan's own
                content = re.sub(r"(?m)^URIs: .*$", f"URIs: {AMDGPU_REPOSITORY}",
                                 step["file"]["content"])
            changed = {**step, "file": {**step["file"], "content": content}}
            add("amdgpu repository", f"{step['id']} content",
                [*steps[:i], changed, *steps[i + 1:]], REPOSITORY_REASON)
    return found


UNPLANNED = "allow-list: packages no plan installs"


def unplanned_mutants(plans: dict[str, list[dict[str, Any]]]) -> list[tuple[Mutant, str]]:
    """Each name of UNPLANNED_PACKAGES (tests/install/test_helper_hostile.py: amdgpu-dkms,
    kernel headers and modules, gnupg, ca-certificates, ROCm names no route installs) in each
    real plan: added to each ``apt-get install`` step, and as an install step of its own after
    the plan's last one; with the reason each must be refused for; each distinct plan once."""
    found: list[tuple[Mutant, str]] = []
    seen: set[bytes] = set()
    for steps in plans.values():
        for name in UNPLANNED_PACKAGES:
            reason = f"package {name!r} {NOT_ALLOWED}"
            own = {"id": "apt-install-more", "privileged": True, "kind": "command",
                   "title": "Install more", "explain": "",
                   "argv": ["apt-get", "install", "-y", name]}
            variants = [("own step", [*steps, own])]
            variants += [(f"{step['id']} plus", [*steps[:i],
                                                 {**step, "argv": [*step["argv"], name]},
                                                 *steps[i + 1:]])
                         for i, step in enumerate(steps)
                         if step.get("argv", [])[:2] == ["apt-get", "install"]]
            for where, mutated in variants:
                payload = json.dumps({"schema": SCHEMA, "steps": mutated}).encode()
                if payload not in seen:
                    seen.add(payload)
                    found.append((Mutant(UNPLANNED, f"{where} {name}", f"{UNPLANNED} / {name}",
                                         payload, harmless=False), reason))
    return found


# --------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    return real_plans(tmp_path_factory.mktemp("runner-state"))


@pytest.fixture(scope="module")
def all_mutants(plans: dict[str, list[dict[str, Any]]]) -> list[Mutant]:
    return mutants(plans)


@pytest.fixture(scope="module")
def fake_target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return fake_system(tmp_path_factory.mktemp("fake-root"))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return trusting_policy()


@pytest.fixture(scope="module")
def plan_root(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The throwaway Debian root, prepared as test_helper_hostile.py's hostile_root is."""
    with copy_root(debian_root, tmp_path_factory.mktemp("hostile-plans") / "copy") as root:
        _prepared_root(root)
        add_system_files(root)
        yield root


def _reasons(raw: bytes, target: Target, policy: Policy) -> list[str]:
    return [r.reason for r in check_input(raw, target, policy).refused]


# --------------------------------------------------------------------------------------------
# tests


def test_real_plans_are_accepted(plans: dict[str, list[dict[str, Any]]], fake_target: Target,
                                 policy: Policy) -> None:
    """The control: the planner's plans, unmutated, pass; they hold every verb of the table
    (amdgpu-install left the table when WSL moved to librocdxg and no route planned it any
    more, issue 33/3; test_helper_hostile.py refuses it, the once valid forms included)."""
    verbs: set[str] = set()
    for where, steps in plans.items():
        result = check_input(json.dumps({"schema": SCHEMA, "steps": steps}).encode(),
                             fake_target, policy)
        assert result.ok, f"{where}: {[r.reason for r in result.refused]}"
        verbs.update(a.verb for a in result.actions)
    assert verbs == {"keyring", "apt-source", "apt-pin", "apt-update", "apt-install",
                     "apt-purge", "usermod"}
    assert len(plans) >= 10


def test_enough_mutants(all_mutants: list[Mutant]) -> None:
    hostile = [m for m in all_mutants if not m.harmless]
    assert len(hostile) >= 1000
    assert {m.family for m in hostile} == set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_check_refuses_every_mutant(family: str, all_mutants: list[Mutant],
                                    fake_target: Target, policy: Policy,
                                    ledger: Ledger) -> None:
    """In-process: each hostile mutant of the family is refused with a reason."""
    accepted = []
    for mutant in all_mutants:
        if mutant.family != family or mutant.harmless:
            continue
        ledger.tried(family, mutant.label)
        reasons = _reasons(mutant.payload, fake_target, policy)
        if not reasons or not all(reasons):
            accepted.append(mutant.label)
    assert not accepted, f"{len(accepted)} hostile plans accepted: {accepted[:20]}"


@pytest.mark.parametrize("family", sorted(TEXT_HARMLESS | {NEWLINE}))
def test_harmless_mutations_are_accepted(family: str, all_mutants: list[Mutant],
                                         fake_target: Target, policy: Policy) -> None:
    """The exclusions are real: each mutant the table calls harmless is accepted (a helper
    that began refusing them would have the table say so, not hide it)."""
    harmless_ones = [m for m in all_mutants if m.family == family and m.harmless]
    assert harmless_ones
    refused = [(m.label, reasons) for m in harmless_ones
               if (reasons := _reasons(m.payload, fake_target, policy))]
    assert not refused, refused[:5]


def _sample(all_mutants: list[Mutant]) -> list[Mutant]:
    """The first hostile mutant of each family and kind of field."""
    chosen: dict[str, Mutant] = {}
    for mutant in all_mutants:
        if not mutant.harmless:
            chosen.setdefault(mutant.sample_key, mutant)
    return list(chosen.values())


@pytest.mark.root
@pytest.mark.parametrize("family", FAMILIES)
def test_hostile_plans_run_nothing(family: str, all_mutants: list[Mutant], fake_target: Target,
                                   policy: Policy, plan_root: Path, ledger: Ledger) -> None:
    """For real, as root: --check exits 2 with the in-process reason, and an audited run is
    refused having started nothing and written nothing, for one mutant of each kind of field."""
    sample = [m for m in _sample(all_mutants) if m.family == family]
    assert sample
    for mutant in sample:
        ledger.tried(family, mutant.label + " (for real)")
        reason = _reasons(mutant.payload, fake_target, policy)[0]
        _assert_runs_nothing(Case(mutant.label, mutant.payload, reason), plan_root)


def test_the_retired_verb_is_refused_in_every_plan(plans: dict[str, list[dict[str, Any]]],
                                                   fake_target: Target, policy: Policy,
                                                   ledger: Ledger) -> None:
    """In-process: every form of amdgpu-install, in every real plan, is refused as a program
    outside the table (never for some other fault of the plan alone)."""
    forms = retired_mutants(plans)
    assert {m.sample_key for m in forms} == {f"{RETIRED} / {name}" for name in AMDGPU_FORMS}
    assert len(forms) >= 10 * len(AMDGPU_FORMS)
    accepted = []
    for mutant in forms:
        ledger.tried(RETIRED, mutant.label)
        if _retired_reason(_reasons(mutant.payload, fake_target, policy)) is None:
            accepted.append(mutant.label)
    assert not accepted, f"{len(accepted)} plans not refused for amdgpu-install: {accepted[:20]}"


def test_what_only_the_retired_route_needed_is_refused(
        plans: dict[str, list[dict[str, Any]]], fake_target: Target, policy: Policy,
        ledger: Ledger) -> None:
    """In-process: the amdgpu-install route's packages, source files and repository, in every
    real plan, are each refused for their own reason (never only for some other fault)."""
    forms = route_mutants(plans)
    names = {*ROUTE_PACKAGES, *ROUTE_FILES, "amdgpu repository"}
    assert {m.sample_key for m, _ in forms} == {f"{RETIRED_ROUTE} / {n}" for n in names}
    assert len(forms) >= 10 * len(names)
    accepted = _not_refused_for_their_reason(RETIRED_ROUTE, forms, fake_target, policy, ledger)
    assert not accepted, f"{len(accepted)} plans not refused for the route: {accepted[:20]}"


def _not_refused_for_their_reason(family: str, forms: list[tuple[Mutant, str]],
                                  fake_target: Target, policy: Policy,
                                  ledger: Ledger) -> list[str]:
    """Each form counted as tried; the labels of those not refused for their own reason."""
    accepted = []
    for mutant, reason in forms:
        ledger.tried(family, mutant.label)
        if not any(reason in r for r in _reasons(mutant.payload, fake_target, policy)):
            accepted.append(mutant.label)
    return accepted


def _one_of_each_runs_nothing(family: str, forms: list[tuple[Mutant, str]], plan_root: Path,
                              ledger: Ledger) -> int:
    """For real: the first form of each sample key through --check and an audited run, which
    must refuse it having started and written nothing; how many were run."""
    chosen: dict[str, tuple[Mutant, str]] = {}
    for mutant, reason in forms:
        chosen.setdefault(mutant.sample_key, (mutant, reason))
    for mutant, reason in chosen.values():
        ledger.tried(family, mutant.label + " (for real)")
        _assert_runs_nothing(Case(mutant.label, mutant.payload, reason), plan_root)
    return len(chosen)


@pytest.mark.root
def test_the_retired_route_runs_nothing(plans: dict[str, list[dict[str, Any]]],
                                        plan_root: Path, ledger: Ledger) -> None:
    """For real, as root: one plan of each form; --check and an audited run refuse it having
    started nothing and written nothing."""
    ran = _one_of_each_runs_nothing(RETIRED_ROUTE, route_mutants(plans), plan_root, ledger)
    assert ran == len(ROUTE_PACKAGES) + len(ROUTE_FILES) + 1


@pytest.mark.root
def test_the_retired_verb_runs_nothing(plans: dict[str, list[dict[str, Any]]],
                                       fake_target: Target, policy: Policy, plan_root: Path,
                                       ledger: Ledger) -> None:
    """For real, as root: one plan of each form; --check and an audited run refuse it having
    started nothing and written nothing."""
    sample = _sample(retired_mutants(plans))
    assert len(sample) == len(AMDGPU_FORMS)
    for mutant in sample:
        ledger.tried(RETIRED, mutant.label + " (for real)")
        reason = _retired_reason(_reasons(mutant.payload, fake_target, policy))
        assert reason is not None
        _assert_runs_nothing(Case(mutant.label, mutant.payload, reason), plan_root)


def test_packages_no_plan_installs_are_refused(plans: dict[str, list[dict[str, Any]]],
                                               fake_target: Target, policy: Policy,
                                               ledger: Ledger) -> None:
    """In-process: each name no plan installs (amdgpu-dkms, kernel headers and modules, gnupg,
    ca-certificates, ROCm names no route asks for), in every real plan, is refused for itself
    (core.install.helper.policy.INSTALLABLE holds only what plans install)."""
    forms = unplanned_mutants(plans)
    assert {m.sample_key for m, _ in forms} == {f"{UNPLANNED} / {n}" for n in UNPLANNED_PACKAGES}
    assert len(forms) >= 10 * len(UNPLANNED_PACKAGES)
    accepted = _not_refused_for_their_reason(UNPLANNED, forms, fake_target, policy, ledger)
    assert not accepted, f"{len(accepted)} plans not refused for the package: {accepted[:20]}"


@pytest.mark.root
def test_packages_no_plan_installs_run_nothing(plans: dict[str, list[dict[str, Any]]],
                                               plan_root: Path, ledger: Ledger) -> None:
    """For real, as root: one plan for each name; --check and an audited run refuse it having
    started nothing and written nothing."""
    ran = _one_of_each_runs_nothing(UNPLANNED, unplanned_mutants(plans), plan_root, ledger)
    assert ran == len(UNPLANNED_PACKAGES)
