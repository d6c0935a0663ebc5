"""sd15-infer's method, in process on the CPU at tiny size: each timed image is one plain
``StableDiffusionPipeline.__call__`` (the figure a diffusers user gets), and the text encoder /
UNet loop / VAE split comes from marks inside that call that change none of its work."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from diffusers import StableDiffusionPipeline, UNet2DConditionModel

from core.bench.worker.device import Device
from core.bench.worker.harness import Harness, Options
from core.bench.worker.protocol import Emitter
from core.bench.worker.suites import sd15


@pytest.fixture
def one_thread() -> Iterator[None]:
    # this CPU is shared: OpenMP threads spinning on a busy core make steps far slower
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def run_in_process(**kw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    stream = io.StringIO()
    base: dict[str, Any] = {"device": "cpu", "size": "tiny", "precision": "fp32",
                            "warmup_steps": 1, "steps": 2, "inference_steps": 2}
    base.update(kw)
    opts = Options(suite="sd15-infer", **base)
    h = Harness(Emitter(stream), Device(torch.device("cpu"), "cpu"), opts)
    result = sd15.run(h, opts)
    return result, [json.loads(line) for line in stream.getvalue().splitlines()]


class Spy:
    """Counts UNet forwards and records every pipeline call with the forwards it made."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.unet_forwards = 0
        self.calls: list[dict[str, Any]] = []
        call, forward = StableDiffusionPipeline.__call__, UNet2DConditionModel.forward

        def spy_call(pipe: Any, *args: Any, **kwargs: Any) -> Any:
            before = self.unet_forwards
            out = call(pipe, *args, **kwargs)
            self.calls.append({"pipe": pipe, "args": args, "kwargs": kwargs, "out": out,
                               "unet_forwards": self.unet_forwards - before})
            return out

        def spy_forward(unet: Any, *args: Any, **kwargs: Any) -> Any:
            self.unet_forwards += 1
            return forward(unet, *args, **kwargs)

        monkeypatch.setattr(StableDiffusionPipeline, "__call__", spy_call)
        monkeypatch.setattr(UNet2DConditionModel, "forward", spy_forward)


def test_each_image_is_one_plain_pipeline_call(monkeypatch: pytest.MonkeyPatch,
                                               one_thread: None) -> None:
    spy = Spy(monkeypatch)
    result, events = run_in_process()
    steps = [e for e in events if e["event"] == "step"]
    assert len(steps) == 3  # 1 warm-up + 2 measured images
    assert len(spy.calls) == 3  # ... each one pipeline call
    for call in spy.calls:
        pipe, kw = call["pipe"], call["kwargs"]
        assert call["args"] == (sd15.PROMPT,)
        assert kw["height"] == kw["width"] == 32
        assert kw["num_inference_steps"] == 2 and kw["guidance_scale"] == sd15.GUIDANCE
        assert kw["output_type"] == "np"
        # nothing precomputed outside the call: prompt embeddings and latents are the call's
        assert not {"prompt_embeds", "negative_prompt_embeds", "latents"} & set(kw)
        assert kw["callback_on_step_end_tensor_inputs"] == []  # the callback sees no tensors
        assert pipe.safety_checker is None
        assert call["unet_forwards"] == 2  # the denoising loop ran inside the call
        assert call["out"].images.shape == (1, 32, 32, 3)
    # no UNet work outside the pipeline calls but the one FLOP-counting forward at set-up
    assert spy.unet_forwards - sum(c["unet_forwards"] for c in spy.calls) in (0, 1)
    # the text-encoder hook is gone after the run
    assert not spy.calls[0]["pipe"].text_encoder._forward_hooks
    assert result["details"]["pipeline"] == "StableDiffusionPipeline"


def test_the_split_adds_up_to_the_image(one_thread: None) -> None:
    result, events = run_in_process(steps=3, inference_steps=3)
    measured = [e for e in events if e["event"] == "step" and e["phase"] == "measure"]
    assert len(measured) == 3
    for s in measured:
        parts = [s["text_encoder_s"], s["unet_loop_s"], s["vae_decode_s"]]
        assert all(p > 0 for p in parts)
        assert 0.95 * s["seconds"] <= sum(parts) <= 1.01 * s["seconds"]
        assert s["unet_it_s"] == pytest.approx(3 / s["unet_loop_s"])
    figs = result["figures"]
    assert figs["unet_it_s"]["n"] == 3 and figs["unet_tflops"]["median"] > 0


def test_batch_size_sends_a_list_of_prompts(monkeypatch: pytest.MonkeyPatch,
                                            one_thread: None) -> None:
    spy = Spy(monkeypatch)
    result, _ = run_in_process(batch_size=2, steps=1, inference_steps=1)
    assert spy.calls and all(c["args"] == ([sd15.PROMPT] * 2,) for c in spy.calls)
    assert spy.calls[-1]["out"].images.shape == (2, 32, 32, 3)
    assert result["measure"]["items"] == 2


def test_the_marks_fall_in_the_call_in_order(one_thread: None, tmp_path: Any) -> None:
    c = sd15.build_random(True, torch.device("cpu"), torch.float32, str(tmp_path))
    pipe = sd15.build_pipeline(c)
    encodes: list[float] = []
    pipe.text_encoder.register_forward_pre_hook(lambda *_: encodes.append(time.perf_counter()))
    timer = sd15.PipelineTimer(pipe, gpu=False)
    marks = timer.start()
    pipe(sd15.PROMPT, height=32, width=32, num_inference_steps=3, guidance_scale=sd15.GUIDANCE,
         output_type="np", callback_on_step_end=timer.on_step_end,
         callback_on_step_end_tensor_inputs=[])
    marks.mark("end")
    stamps = [marks.marks[m][0] for m in sd15.MARKS]
    assert stamps == sorted(stamps)
    assert len(encodes) == 2  # prompt and empty prompt (classifier-free guidance)
    assert stamps[1] > encodes[-1]  # the text mark is after the last encoder forward
    timer.close()
    assert not pipe.text_encoder._forward_hooks


def test_marks_on_a_gpu_use_stream_events_and_never_synchronise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    recorded: list[FakeEvent] = []

    class FakeEvent:
        def __init__(self, enable_timing: bool = False) -> None:
            assert enable_timing
            self.at = float(len(recorded)) * 250.0  # ms: 0, 250, 500 ...

        def record(self) -> None:
            recorded.append(self)

        def elapsed_time(self, end: FakeEvent) -> float:
            return end.at - self.at

    def no_sync(*_: Any) -> None:
        raise AssertionError("a mark must not synchronise the device")

    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", no_sync)
    marks = sd15.Marks(gpu=True)
    marks.mark("a")
    marks.mark("b")
    marks.mark("b")  # marked again: the last one counts
    assert len(recorded) == 3
    assert marks.seconds("a", "b") == pytest.approx(0.5)  # from the events, not perf_counter
    cpu = sd15.Marks(gpu=False)
    cpu.mark("a")
    cpu.mark("b")
    assert len(recorded) == 3 and 0 <= cpu.seconds("a", "b") < 0.1
