"""The doctor's terminal layout counts columns, not characters: a Chinese character takes two,
Chinese text breaks between characters (never inside a Latin word, a command or a path), and
the summary's labels are padded to one column however wide they are drawn. English is laid out
exactly as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose import doctor_text
from core.diagnose.doctor_text import _columns, _wrap
from core.termstyle import display_width

MACHINES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "machines"


def _old_wrap(text: str, width: int = 92) -> list[str]:
    """The wrapping before it counted columns: the English reference."""
    words = text.split()
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(current)
    return lines


ENGLISH = [
    "A ROCm PyTorch that hangs on 'import torch' or on its first GPU call usually waits on the "
    "GPU: a wrong HSA_OVERRIDE_GFX_VERSION, a card the runtime cannot start, or an amdgpu driver "
    "that is stuck (dmesg says so). A first import from a slow or network disk can also take "
    "minutes.",
    "Give the Python that holds PyTorch: --python ~/venvs/sd/bin/python (inside the activated "
    "environment, `python -c 'import sys; print(sys.executable)'` prints it);\n  without "
    "--python rocmate checks its own   environment.",
    "short",
    "",
    "x" * 120 + " tail",
]


@pytest.mark.parametrize("text", ENGLISH)
@pytest.mark.parametrize("width", [92, 40, 20, 5])
def test_english_wraps_exactly_as_before(text: str, width: int) -> None:
    assert _wrap(text, width) == _old_wrap(text, width)
    assert _wrap(text) == _old_wrap(text)


def test_chinese_wraps_by_display_width() -> None:
    text = "这是一个很长的中文句子，用来测试按显示宽度换行的功能是否正确。"
    lines = _wrap(text, 20)
    assert lines == ["这是一个很长的中文句", "子，用来测试按显示宽", "度换行的功能是否正", "确。"]
    assert "".join(lines) == text  # a break between characters adds and loses nothing
    assert all(display_width(line) <= 20 for line in lines)
    assert len(text) == 31 and len(_old_wrap(text, 20)) == 1  # the old one counted no breaks
    assert not any(line[0] in "，。" for line in lines)


def test_chinese_with_latin_words_breaks_at_spaces_and_between_characters_only() -> None:
    text = "请先运行 rocmate install 安装带有匹配 ROCm 版本的 PyTorch 虚拟环境，然后再检查一次。"
    lines = _wrap(text, 20)
    assert all(display_width(line) <= 20 for line in lines)
    for word in ("rocmate", "install", "ROCm", "PyTorch"):
        assert any(word in line for line in lines)  # each one whole on some line
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_a_long_command_is_never_split() -> None:
    command = "HSA_OVERRIDE_GFX_VERSION=10.3.0"
    assert _wrap(f"Set {command} first", 20) == ["Set", command, "first"]
    glued = f"请设置{command}后重新启动这个程序"
    lines = _wrap(glued, 20)
    assert any(command in line for line in lines)
    assert all(display_width(line) <= 20 for line in lines if command not in line)
    path = "/home/张三三三三三/venvs/sd/bin/python"
    lines = _wrap(f"在 {path} 里面没有找到 PyTorch 请检查一下", 20)
    assert path in lines


def test_labels_line_up_by_display_width() -> None:
    assert _columns([("System", "a"), ("GPUs", "b"), ("PyTorch", "c")]) == [
        "  System   a", "  GPUs     b", "  PyTorch  c"]
    rows = _columns([("系统", "a"), ("显卡", "b"), ("ROCm", "c"), ("", "d")])
    assert rows == ["  系统     a", "  显卡     b", "  ROCm     c", "           d"]
    wide = _columns([("很长很长的标签", "a"), ("GPU", "b")])  # 14 columns: all values move
    assert [display_width(r[: r.index(v)]) for r, v in zip(wide, "ab", strict=True)] == [17, 17]


def test_a_translated_report_keeps_its_columns_and_fix_indent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from core.diagnose.doctor import DoctorReport
    from core.diagnose.finding import Finding
    from core.operations.machine import check_machine
    from core.termstyle import Style

    chinese = {"doctor.text.label.system": "系统", "doctor.text.label.gpus": "显卡",
               "doctor.text.fix": "修复：", "doctor.text.verdict.ready-after-fixes": "修复后可用",
               "doctor.text.verdict-line.to-fix": "结论：{verdict}（需修复 {count} 项）"}

    def fake_t(key: str, english: str, /, **values: object) -> str:
        return chinese.get(key, english).format(**values)

    monkeypatch.setattr(doctor_text, "t", fake_t)
    report = check_machine(MACHINES / "rx6700xt-ubuntu2204-needs-override", probe_torch=False)
    finding = Finding("x", "warning", "Two steps", "", "first line\nsecond line")
    two = DoctorReport(report.facts, report.supports, report.primary_index, (finding,),
                       "Ready after these fixes", 0.0)
    text = doctor_text.render_text(two, Style(False))
    summary = [line for line in text.splitlines() if line.startswith("  ")][:4]
    assert summary[0].startswith("  系统     ") and summary[1].startswith("  显卡     ")
    for line in summary:  # every value starts in column 11, after a space
        label = next(line[:i] for i in range(len(line) + 1) if display_width(line[:i]) >= 11)
        assert display_width(label) == 11 and label.endswith(" ") and line[len(label)] != " "
    # a full-width colon carries its own room: no space after it, the next lines under the first
    assert "    修复：first line\n          second line\n" in text
    assert text.rstrip().endswith("结论：修复后可用（需修复 1 项）")


# --- issue 30/11: Fix text, wrapped like the detail, its own indents kept ----------------------

def _rocmate(*args: str) -> str:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=root,
                         capture_output=True, text=True, timeout=120, check=False,
                         env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"})
    return out.stdout


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_every_fix_line_fits_and_continues_under_its_first(lang: str) -> None:
    for machine in ("no-gpu-aspeed-server", "rocm-multiple-2x-rx7900xtx",
                    "kfd-missing-ubuntu2204-server", "nvidia-only-desktop"):
        text = _rocmate("--lang", lang, "doctor", "--no-torch", "--root", str(MACHINES / machine))
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.lstrip().startswith(("Fix:", "解决办法：")):
                assert display_width(line) <= doctor_text.WIDTH, (machine, line)
                start = display_width(line) - display_width(line.lstrip().split(maxsplit=1)[-1]) \
                    if lang == "en" else 0
                for after in lines[i + 1:]:
                    if not after.startswith("     "):
                        break
                    assert display_width(after) <= doctor_text.WIDTH, (machine, after)
                    if lang == "en":
                        assert after.startswith(" " * start), (machine, after)


def test_a_fix_of_several_lines_keeps_its_commands_indented_under_the_label() -> None:
    text = _rocmate("explain", "--root", str(MACHINES / "rx6600-ubuntu2404-fresh"),
                    "RuntimeError: HIP error: invalid device function")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("   Fix: For the"))
    assert "        the doctor's answer for this card is to pose as gfx1030:" in lines[first + 1]
    assert lines[first + 2] == "          export HSA_OVERRIDE_GFX_VERSION=10.3.0"
    assert "          AMD_SERIALIZE_KERNEL=3 python your_script.py" in lines
    assert all(display_width(line) <= doctor_text.WIDTH for line in lines)


def test_quoted_commands_and_a_commands_note_gap_stay_whole() -> None:
    fix = ("Fix the findings above, then check again: python -c 'import torch; "
           "print(torch.cuda.is_available())'")
    assert doctor_text.wrap_block(fix, 60) == [
        "Fix the findings above, then check again: python -c",
        "'import torch; print(torch.cuda.is_available())'"]
    note = "export HSA_OVERRIDE_GFX_VERSION=10.3.0   (rocmate install writes it)"
    assert doctor_text.wrap_block(note, 80) == [note]  # fits: as written, gap and all
    assert doctor_text.wrap_block("  cmd --a   --b\n\nprose", 5) == ["  cmd --a   --b", "",
                                                                     "prose"]
