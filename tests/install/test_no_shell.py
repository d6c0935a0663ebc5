"""Nothing under core/install builds a shell command line: no ``shell=True``, no ``os.system`` or
``os.popen``, no ``sh -c`` (or bash, dash, zsh) argv. Every command the set-up runs, as the user
or as root, is an argv whose words reach the program as they are. Read from the source with
``ast``, so a new module is covered the day it is added."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "fish"}


def _is_shell(word: ast.expr) -> bool:
    return isinstance(word, ast.Constant) and isinstance(word.value, str) and \
        Path(word.value).name in SHELLS


def shell_lines(source: str) -> list[str]:
    """What in ``source`` builds a shell command line, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            owner = func.value.id if isinstance(func, ast.Attribute) and \
                isinstance(func.value, ast.Name) else ""
            if any(k.arg == "shell" and not (isinstance(k.value, ast.Constant)
                                             and k.value.value is False)
                   for k in node.keywords):
                found.append(f"{node.lineno}: shell=")
            if (owner == "os" and name in ("system", "popen")) or \
                    (owner == "subprocess" and name in ("getoutput", "getstatusoutput")):
                found.append(f"{node.lineno}: {owner}.{name}")
        if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) >= 2:
            words = node.elts
            for i in range(len(words) - 1):
                following = words[i + 1]
                if _is_shell(words[i]) and isinstance(following, ast.Constant) and \
                        isinstance(following.value, str) and following.value.startswith("-") \
                        and "c" in following.value:
                    shell = getattr(words[i], "value", "")
                    found.append(f"{node.lineno}: a {shell} -c argv")
    return found


def test_no_module_under_core_install_builds_a_shell_command_line() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}"
             for path in sorted((ROOT / "core" / "install").rglob("*.py"))
             for line in shell_lines(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_check_finds_each_way() -> None:
    source = (
        "import os, subprocess\n"
        "subprocess.run('apt-get install x', shell=True)\n"
        "os.system('id')\n"
        "os.popen('id')\n"
        "subprocess.run(['/bin/bash', '-c', 'id'])\n"
        "subprocess.run(('sh', '-ec', 'id'))\n"
        "subprocess.run(['apt-get', 'install', '-y', 'rocm'], shell=False)\n"
    )
    assert shell_lines(source) == ["2: shell=", "3: os.system", "4: os.popen",
                                   "5: a /bin/bash -c argv", "6: a sh -c argv"]
