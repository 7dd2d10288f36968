"""A serving run through the Python package: its kind, its variants frame and its requests frame."""
import numpy as np
import pandas.api.types as t

import weft

SMALL_SERVING = """\
name: small serving
seed: 1
system: {name: dgx-h100}
workload:
  serving:
    model: llama-3-8b
    parallel: {tp: 2, replicas: 2}
    requests: {arrivals: poisson, rate: 4, count: 40, prompt: {mean: 300}, output: {mean: 20}}
    slo: {ttft: 100ms}
compare:
  - name: tp1 x 4
    set: {workload.serving.parallel.tp: 1, workload.serving.parallel.replicas: 4}
"""


def test_serving_frames():
    r = weft.run(weft.load(SMALL_SERVING))
    assert r.kind == "serving"
    v = r.variants
    assert list(v["variant"]) == r.names == ["baseline", "tp1 x 4"]
    for col in ["output_tokens_per_s", "ttft_p50_ms", "tpot_p99_ms", "goodput_requests_per_s", "usd_per_m_output"]:
        assert t.is_float_dtype(v[col]), col
    assert (v["requests"] == 40).all()
    q = r.requests
    assert len(q) == 80 and set(q["variant"]) == set(r.names)
    assert (q["output_tokens"] == 20).all() and (q["prompt_tokens"] == 300).all()
    assert (q["e2e_ms"] >= q["ttft_ms"]).all()
    base = q[q["variant"] == "baseline"]
    assert np.isclose(base["ttft_ms"].median(), v["ttft_p50_ms"].iloc[0], rtol=1e-6)
    assert r.collectives.empty and r.ops.empty


def test_serving_plan_search():
    """plan_search on a serving scenario: every layout of Llama 3 8B over the 8 GPUs, colocated and
    disaggregated, each serving the requests; the answer is one of them and meets the SLO."""
    s = weft.load(SMALL_SERVING)
    del s["compare"]
    plans = weft.plan_search(s)
    assert plans.attrs["gpus"] == 8
    assert len(plans) == 27  # 10 colocated tp x pp, 17 disaggregated splits
    assert "tp 8 x 1" in set(plans["plan"]) and "P tp 1 x 4 + D tp 4 x 1" in set(plans["plan"])
    assert t.is_float_dtype(plans["ttft_p50_ms"]) and plans["meets"].dtype == bool
    answer = plans.attrs["answer"]
    assert answer in set(plans["plan"]) and plans.set_index("plan").loc[answer, "meets"]
    assert "configuration" in plans.attrs["table"]
