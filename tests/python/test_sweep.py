"""weft.sweep: a stable grid order, errors in rows, and Dask giving the very rows local processes give."""
import pandas as pd
import pytest

import weft

GRID = {"system.node.nic": ["eth-25g", "eth-100g"], "workload.batch.global": [8, 16]}


@pytest.fixture(scope="module")
def base(small_training):
    s = small_training.copy()
    del s["compare"]
    return s


@pytest.fixture(scope="module")
def local(base):
    return weft.sweep(base, GRID, workers=2)


def test_sweep_rows_in_grid_order(local):
    assert list(local["system.node.nic"]) == ["eth-25g", "eth-25g", "eth-100g", "eth-100g"]
    assert list(local["workload.batch.global"]) == [8, 16, 8, 16]
    assert local["error"].isna().all()
    assert (local["step_ms"] > 0).all() and list(local.columns)[-1] == "error"


def test_sweep_serial_equals_processes(base, local):
    serial = weft.sweep(base, GRID, workers=1)
    pd.testing.assert_frame_equal(serial, local)


def test_sweep_on_dask_localcluster_equals_local(base, local):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc, \
            distributed.Client(lc) as client:
        remote = weft.sweep(base, GRID, client=client)
    pd.testing.assert_frame_equal(remote, local)


def test_failing_point_reports_in_its_row(base):
    df = weft.sweep(base, {"workload.parallel.tp": [2, 3]}, workers=1)
    assert len(df) == 2
    assert df["error"].iloc[0] is None and df["step_ms"].iloc[0] > 0
    assert "ConfigError" in df["error"].iloc[1] and "tp" in df["error"].iloc[1]
    assert pd.isna(df["step_ms"].iloc[1])


def test_sweep_with_variants_gives_a_row_per_variant(small_training):
    df = weft.sweep(small_training, {"workload.seq_len": [512, 1024]}, workers=1)
    assert list(df["variant"]) == ["baseline", "100G RoCE"] * 2
