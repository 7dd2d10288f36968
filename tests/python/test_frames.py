"""DataFrame columns and dtypes."""
import numpy as np
import pandas as pd
import pandas.api.types as t

import weft


def test_variants_frame(training_result):
    v = training_result.variants
    assert list(v["variant"]) == training_result.names
    for col in ["step_ms", "speedup", "compute_ms", "exposed_DP_ms", "exposed_TP_ms", "idle_ms", "tflops_per_gpu",
                "mfu", "capital_usd", "usd_per_step", "tokens_per_s"]:
        assert t.is_float_dtype(v[col]), col
    assert t.is_integer_dtype(v["gpus"])
    assert np.allclose(v["compute_ms"] + v.filter(like="exposed_").sum(axis=1) + v["idle_ms"], v["step_ms"], rtol=1e-3)
    assert (v["capital_usd"] > 0).all()


def test_collectives_frame(training_result):
    c = training_result.collectives
    assert list(c.columns) == ["variant", "group", "op", "bytes", "ranks", "count", "total_ms", "mean_us", "algorithm"]
    assert t.is_integer_dtype(c["bytes"]) and t.is_integer_dtype(c["count"]) and t.is_float_dtype(c["total_ms"])
    assert set(c["variant"]) == set(training_result.names)


def test_ops_frame(training_result):
    ops = training_result.ops
    assert isinstance(ops["kind"].dtype, pd.CategoricalDtype)
    assert isinstance(ops["group"].dtype, pd.CategoricalDtype)
    assert ops["rank"].dtype == np.uint32 and ops["bytes"].dtype == np.int64
    assert t.is_float_dtype(ops["start_us"]) and (ops["end_us"] >= ops["start_us"]).all()
    assert set(ops["variant"].astype(str)) == set(training_result.names)
    base = ops[ops["variant"] == "baseline"]
    step_ms = training_result.variants["step_ms"].iloc[0]
    assert abs((base["end_us"].max() - base["issued_us"].min()) / 1e3 - step_ms) < 1e-3
    assert set(ops["kind"].astype(str)) >= {"compute", "collective"}
    two = training_result.ops_for("100G RoCE", ranks=[0, 1])
    assert set(two["rank"]) == {0, 1}


def test_links_frame(training_result):
    links = training_result.links
    assert list(links.columns) == ["variant", "link", "rank_by_load", "bin", "time_us", "bin_us", "utilisation"]
    assert len(links) > 0
    assert links["utilisation"].between(0, 1.0 + 1e-9).all()
    assert links.groupby("variant")["link"].nunique().max() <= 16


def test_flows_frame(small_traffic):
    r = weft.run(small_traffic)
    f = r.flows
    assert list(f.columns) == ["variant", "src", "dst", "bytes", "priority", "start_us", "fct_us", "ideal_us",
                               "slowdown"]
    assert len(f) == 4 and (f["dst"] == 0).all() and f["bytes"].dtype == np.int64
    v = r.variants
    assert v["fct_p99_us"].iloc[0] == f["fct_us"].max()
    assert {"pause_frames", "drops", "ecn_marks", "goodput_Gbps"} <= set(v.columns)


def test_collective_table():
    df = weft.collective(system="dgx-h100", nodes=1, op="all_reduce", sizes=("1M", "64M"), factor=4)
    assert list(df.columns) == ["size", "count", "type", "time_us", "algbw_GBps", "busbw_GBps", "transfers",
                                "algorithm", "note"]
    assert list(df["size"]) == [1 << 20, 1 << 22, 1 << 24, 1 << 26]
    assert df["busbw_GBps"].is_monotonic_increasing
    assert df.attrs["ranks"] == 8
    ring = weft.collective(topology="single-switch", ranks=8, link_rate="400Gbps", sizes=["1M", 4 << 20])
    # Ring all-reduce's bus bandwidth approaches the link's 50 GB/s from below.
    assert (ring["busbw_GBps"] < 50).all() and ring["busbw_GBps"].iloc[1] > 40


def test_collective_calibration_and_errors(tmp_path):
    """The same request as `weft collective`: --calibration times the measured sizes (10 us + bytes /
    5 GB/s = 219.72 us for 1 MiB), and errors name the keyword as Python spells it."""
    import pytest

    fit = tmp_path / "fit.network.yaml"
    fit.write_text("format: weft-network-profile\nversion: 1\nseries:\n  - {kind: collective, op: all_reduce, "
                   "ranks: 8, algorithm: ring, protocol: simple, link: inter, alpha_us: 10, beta_GBps: 5}\n")
    df = weft.collective(ranks=8, sizes=["1M"], calibration=str(fit))
    assert df["time_us"].iloc[0] == pytest.approx(219.72, abs=0.01) and df["note"].iloc[0] == "calibrated"
    with pytest.raises(weft.ConfigError, match="^algo, proto and nccl_version need a catalogue system"):
        weft.collective(sizes=["1M"], algo="Ring")
    # nccl-tests -g 8: eight launches of 3.25 us bound an 8-byte all-reduce on a DGX-1, not a 1 GiB one.
    g8 = weft.collective(system="dgx1-v100", sizes=["8", "1G"], gpus_per_thread=8)
    g1 = weft.collective(system="dgx1-v100", sizes=["8", "1G"])
    assert g8["time_us"].iloc[0] == pytest.approx(26.0) and g8["note"].iloc[0].startswith("host-bound")
    assert g1["time_us"].iloc[0] < 26.0 and g8["time_us"].iloc[1] == g1["time_us"].iloc[1]
    with pytest.raises(weft.ConfigError, match="gpus_per_thread: expected at least 1"):
        weft.collective(sizes=["1M"], gpus_per_thread=0)


def test_reduction_order_text():
    """weft.reduction_order is `weft collective --reduction-order`: Ring at 1 MiB, NVLS at 4 MiB on a DGX
    H100, every element reordered between them; a system is required."""
    import pytest

    text = weft.reduction_order("dgx-h100", sizes=("1M", "4M"), factor=4, elements=4096)
    rows = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(rows) == 2 and "Ring" in rows[0] and "NVLS" in rows[1] and "4096/" in rows[1]
    assert "nvswitch(0 + 1 + 2 + 3 + 4 + 5 + 6 + 7)" in text
    with pytest.raises(weft.ConfigError, match="system: unknown .no-such-box."):
        weft.reduction_order("no-such-box")


def test_ops_cap_keeps_whole_ranks(training_result):
    import pytest

    per_rank = (training_result.ops_for(ranks=[0])).shape[0]
    with pytest.warns(UserWarning, match="cut to whole ranks"):
        capped = training_result.ops_for(limit=per_rank + 1)
    assert set(capped["rank"]) == {0} and len(capped) == per_rank


def test_variants_frame_memory(training_result):
    v = training_result.variants
    parts = ["memory_weights_gib", "memory_gradients_gib", "memory_optimizer_gib", "memory_activations_gib",
             "memory_fixed_gib"]
    for col in parts + ["memory_total_gib", "memory_capacity_gib"]:
        assert t.is_float_dtype(v[col]), col
    assert np.allclose(v[parts].sum(axis=1), v["memory_total_gib"])
    assert (v["memory_capacity_gib"] == 24).all()  # RTX 3090
    assert v["memory_fits"].dtype == bool


def test_plan_search(small_training):
    s = small_training.copy()
    del s["compare"]
    plans = weft.plan_search(s, top=2)
    assert plans.attrs["gpus"] == 8 and plans.attrs["nvlink_domain"] == 4
    assert plans.attrs["considered"] == len(plans) + plans.attrs["impossible"] + plans.attrs["too_big"]
    assert (plans["tp"] * plans["pp"] * plans["dp"] * plans["cp"] == 8).all()
    assert (plans["tp"] <= 4).all()
    assert plans["step_ms"].notna().sum() == 2
    assert plans["step_ms"].iloc[0] <= plans["step_ms"].iloc[1]
    assert "plan search: small step on 8 GPUs" in plans.attrs["table"]
    # A screen of every plan with NCCL's estimates, the best 4 ranked with isolated collectives.
    screened = weft.plan_search(s, top=1, isolated=4)
    assert screened.attrs["screened"] == len(screened) and screened.attrs["isolated"] == 4
    assert screened["model_ms"].notna().all()
    assert screened["isolated_ms"].notna().sum() == 4
    assert screened["step_ms"].notna().sum() == 1
    # The file's plan: {isolated: N} when the call does not say.
    s["plan"] = {"search": "parallel", "isolated": 3}
    assert weft.plan_search(s, top=1).attrs["isolated"] == 3


def test_ep_frame():
    """weft.ep is `weft ep`: DeepEP's dispatch and combine per phase. On one DGX H100 every byte stays on
    NVLink and combine (bf16) moves 2 / (1 + 4/128) times dispatch's fp8 bytes; errors name the keyword."""
    import pytest

    df = weft.ep("dgx-h100", tokens=512)
    assert list(df["phase"]) == ["dispatch", "combine"] and (df["counted_as"] == "NVLink").all()
    assert (df["network_bytes_per_rank"] == 0).all() and df.attrs["ranks"] == 8
    ratio = df["nvlink_bytes_per_rank"].iloc[1] / df["nvlink_bytes_per_rank"].iloc[0]
    assert ratio == pytest.approx(2 / (1 + 4 / 128), rel=1e-6)
    two = weft.ep("dgx-h100", nodes=2, kernel="low-latency", tokens=128, phase="dispatch")
    assert len(two) == 1 and two["network_bytes_per_rank"].iloc[0] > 0 and two["counted_as"].iloc[0] == "RDMA"
    with pytest.raises(weft.ConfigError, match="100 experts do not divide over 8 ranks"):
        weft.ep("dgx-h100", experts=100)
    with pytest.raises(weft.ConfigError, match="no field 'node.nope'"):
        weft.ep("dgx-h100", set={"node.nope": 1})
