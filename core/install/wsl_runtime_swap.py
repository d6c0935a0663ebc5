"""The WSL 2 runtime swap: make a ROCm PyTorch wheel use the system HSA runtime.

PyTorch's ROCm wheels bundle ``libhsa-runtime64.so``, which speaks to /dev/kfd; in WSL 2 the GPU is
behind /dev/dxg and only the HSA runtime of AMD's WSL install (/opt/rocm/lib) reaches it. AMD's
WSL instructions delete the bundled copy and put the system one in its place. This runs as the
user, on the user's own environment: ``python -m core.install.wsl_runtime_swap --venv DIR``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys

SYSTEM_LIBS = ("/opt/rocm/lib",)


def torch_lib_dirs(venv: str) -> list[str]:
    return sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "torch", "lib")))


def system_runtime() -> str | None:
    for folder in SYSTEM_LIBS:
        found = sorted(glob.glob(os.path.join(folder, "libhsa-runtime64.so.1.*")))
        if found:
            return found[-1]
    return None


def swap(venv: str) -> dict[str, object]:
    """Replace the bundled runtime in every torch/lib of ``venv``; what was done."""
    source = system_runtime()
    if source is None:
        return {
            "ok": False,
            "error": "no /opt/rocm/lib/libhsa-runtime64.so.1.* (install ROCm for WSL first)",
        }
    changed = []
    for lib in torch_lib_dirs(venv):
        for old in glob.glob(os.path.join(lib, "libhsa-runtime64.so*")):
            os.remove(old)
        target = os.path.join(lib, "libhsa-runtime64.so")
        shutil.copy2(source, target)
        changed.append(target)
    if not changed:
        return {"ok": False, "error": f"no torch/lib folder in {venv}"}
    return {"ok": True, "replaced": changed, "from": source}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.install.wsl_runtime_swap")
    parser.add_argument("--venv", required=True)
    args = parser.parse_args(argv)
    result = swap(os.path.realpath(args.venv))
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
