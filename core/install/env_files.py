"""The card's environment variables and the files that carry them: the variables the plan
sets (:func:`environment`, the override a tester found working, those ``rocmate tune`` kept), and
``bin/rocmate-env.<shell>`` for sh, fish and csh, sourced from the venv's own activation scripts
(:func:`add_env_files`), never /etc/profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.diagnose.context import Context, Support
from core.diagnose.rules_runtime import rocr_visible_devices
from core.i18n import t
from core.install.plan import FileSpec, Step
from core.install.plan_builder import PlanBuilder, PlanError
from core.probe.environment import TUNED
from core.probe.facts import Facts
from core.probe.gpus import Gpu
from core.probe.parse.kfd import parse_gfx_override

ALLOC_CONF = "expandable_segments:True"


@dataclass(frozen=True)
class EnvShell:
    """How one shell family gets the card's variables: ``bin/rocmate-env.<name>``, sourced from
    the venv's own ``bin/<activate>`` (``python -m venv`` writes activate, .fish and .csh)."""

    name: str
    line: str
    """One variable, formatted with ``key`` and ``value`` (validated; no quoting needed): set
    only where the shell does not have it yet, so a value the user exports wins, as it does
    for what rocmate runs in the environment (core.probe.environment.applied_env)."""
    source: str
    """The line appended to the activate script, formatted with ``script``."""
    forced: str
    """``line`` for a variable set even over an exported value the doctor finds wrong."""
    unset: str
    """The line that removes an exported variable the doctor finds wrong (``key``)."""
    activate: str
    file_title: Callable[[], str]
    """The env-file step's title (words: in the language of the moment, so made when asked)."""
    file_explain: Callable[[str], str]
    """The env-file step's explanation, given the variables (``K=V, ...``)."""
    activate_title: Callable[[], str]


# The sh entry's ids and texts are those of plans before fish and csh: kept, so a resumed run
# still counts its env-file and env-activate as done and outside checks find the same ids.
ENV_SHELLS = (
    EnvShell(
        "sh",
        'export {key}="${{{key}-{value}}}"',
        '. "{script}"',
        'export {key}="{value}"',
        "unset {key}",
        "activate",
        lambda: t("plan.env-file.title", "Write the card's environment variables"),
        lambda variables: t("plan.env-file.explain",
                            "Into the environment's own activation, not {profile}: {variables}",
                            profile="/etc/profile", variables=variables),
        lambda: t("plan.env-activate.title", "Load them when the environment is activated"),
    ),
    EnvShell(
        "fish",
        'set -q {key}; or set -gx {key} "{value}"',
        'source "{script}"',
        'set -gx {key} "{value}"',
        "set -eg {key}",
        "activate.fish",
        lambda: t("plan.env-file-fish.title", "Write the variables for fish"),
        lambda variables: t("plan.env-file-fish.explain",
                            "The same variables for {file}: {variables}",
                            file="bin/activate.fish", variables=variables),
        lambda: t("plan.env-activate-fish.title",
                  "Load them when fish activates the environment"),
    ),
    EnvShell(
        "csh",
        'if (! $?{key}) setenv {key} "{value}"',
        'source "{script}"',
        'setenv {key} "{value}"',
        "unsetenv {key}",
        "activate.csh",
        lambda: t("plan.env-file-csh.title", "Write the variables for csh and tcsh"),
        lambda variables: t("plan.env-file-csh.explain",
                            "The same variables for {file}: {variables}",
                            file="bin/activate.csh", variables=variables),
        lambda: t("plan.env-activate-csh.title",
                  "Load them when csh or tcsh activates the environment"),
    ),
)


def environment(
    ctx: Context, gpu: Gpu, support: Support, has_native: bool
) -> dict[str, str]:
    env = {"PYTORCH_HIP_ALLOC_CONF": ALLOC_CONF}
    if support.status == "override" and support.override and not has_native:
        # With several AMD GPUs in KFD the global variable would make every one of them pose as
        # the same target: the per-node form (KFD node id, CPU nodes counted) touches only this one.
        in_kfd = [g for g, _ in ctx.amd if g.kfd_node is not None]
        if len(in_kfd) > 1 and gpu.kfd_node is not None:
            env[f"HSA_OVERRIDE_GFX_VERSION_{gpu.kfd_node}"] = support.override
        else:
            env["HSA_OVERRIDE_GFX_VERSION"] = support.override
    discrete = [g for g, s in ctx.usable_amd if not g.integrated]
    integrated_first = any(
        g.integrated
        and g.kfd_node is not None
        and discrete
        and discrete[0].kfd_node is not None
        and g.kfd_node < discrete[0].kfd_node
        for g, _ in ctx.amd
    )
    if integrated_first:
        env["HIP_VISIBLE_DEVICES"] = ",".join(str(ctx.rocm_index(g)) for g in discrete)
    hidden = rocr_visible_devices(ctx)
    if hidden is not None:  # a card that stops ROCm from starting beside the others (32/2)
        env["ROCR_VISIBLE_DEVICES"] = hidden
    return env


def tuned(facts: Facts, chosen: tuple[tuple[str, str], ...] | None) -> dict[str, str]:
    """The variables ``rocmate tune`` kept: those chosen, else those the environment's
    rocmate-env.sh sets now (a later plan keeps them instead of dropping them)."""
    if chosen is None:
        return {k: v for k, v in facts.environment.applied.items() if k in TUNED}
    refused = [k for k, _ in chosen if k not in TUNED]
    if refused:
        raise PlanError(t("plan.error.tuned-name", "{names}: not a variable rocmate tune "
                          "keeps", names=", ".join(refused)))
    return dict(chosen)


def with_tested_override(env: dict[str, str], tested: str | None) -> dict[str, str]:
    """The variables with a value the override tester found working in place of the
    knowledge base's (under the same name: the global or the per-node variable)."""
    if tested is None:
        return env
    if tested and parse_gfx_override(tested) is None:
        raise PlanError(t("plan.error.override-value", "{value} is not an {variable} value "
                          "(like {example})", value=repr(tested),
                          variable="HSA_OVERRIDE_GFX_VERSION", example="10.3.0"))
    names = [k for k in env if k.startswith("HSA_OVERRIDE_GFX_VERSION")]
    kept = {k: v for k, v in env.items() if k not in names}
    if tested:
        kept[names[0] if names else "HSA_OVERRIDE_GFX_VERSION"] = tested
    return kept



def add_env_files(builder: PlanBuilder) -> None:
    pairs = sorted(builder.env.items())
    for shell in ENV_SHELLS:
        suffix = "" if shell.name == "sh" else f"-{shell.name}"
        script = f"{builder.venv}/bin/rocmate-env.{shell.name}"
        lines = [shell.unset.format(key=k) for k in builder.fixes.unset] + [
            (shell.forced if k in builder.fixes.forced else shell.line).format(key=k, value=v)
            for k, v in pairs]
        builder.add(
            Step(
                f"env-file{suffix}",
                shell.file_title(),
                shell.file_explain(", ".join([f"unset {k}" for k in builder.fixes.unset]
                                             + [f"{k}={v}" for k, v in pairs])
                                   or t("plan.env-file.none-needed", "none needed")),
                file=FileSpec(
                    script,
                    content="# Written by rocmate: variables this GPU needs.\n"
                    + "\n".join(lines)
                    + "\n",
                ),
                kind="file",
            )
        )
        builder.add(
            Step(
                f"env-activate{suffix}",
                shell.activate_title(),
                t("plan.env-activate.explain", "One line at the end of {file}.",
                  file=f"bin/{shell.activate}"),
                file=FileSpec(
                    f"{builder.venv}/bin/{shell.activate}",
                    content=shell.source.format(script=script) + "\n",
                    append=True,
                ),
                kind="file",
            )
        )
