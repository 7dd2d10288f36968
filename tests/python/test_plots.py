"""Plots produce non-empty PNGs, from results and from a `weft run --out` folder."""
import os
import subprocess
import sys

import pandas as pd
import pytest

import weft

PNG = b"\x89PNG\r\n\x1a\n"


def _saved(fig, path):
    fig.savefig(path)
    data = path.read_bytes()
    assert data.startswith(PNG) and len(data) > 5000, path
    return data


def test_result_plots(tmp_path, training_result, small_traffic):
    _saved(weft.plot.breakdown(training_result), tmp_path / "breakdown.png")
    _saved(weft.plot.memory(training_result), tmp_path / "memory.png")
    _saved(weft.plot.links(training_result), tmp_path / "links.png")
    _saved(weft.plot.timeline(training_result, ranks=[0, 1]), tmp_path / "timeline.png")
    _saved(weft.plot.fct(weft.run(small_traffic)), tmp_path / "fct.png")


def test_frontier(tmp_path):
    # Hand-made: b is faster and dearer than a, c is dearer and slower than b (not on the frontier).
    df = pd.DataFrame({"variant": ["a", "b", "c"], "step_ms": [30.0, 10.0, 20.0],
                       "capital_usd": [1.0, 2.0, 3.0]})
    assert list(weft.plot.pareto(df)["variant"]) == ["a", "b"]
    _saved(weft.plot.frontier(df), tmp_path / "frontier.png")


def test_busbw_with_measured(tmp_path, root):
    df = weft.collective(system="dgx-h100", nodes=1, sizes=("1M", "256M"), factor=4)
    measured = pd.read_csv(root.parent / "shared" / "validation" / "collectives.csv")
    measured = measured[measured["system"].str.contains("DGX H100") & (measured["collective"] == "all_reduce")]
    _saved(weft.plot.busbw(df, measured=measured), tmp_path / "busbw.png")


@pytest.mark.parametrize("module", [["weft.plot"], ["weft", "plot"]])
def test_plot_cli_on_run_folder(tmp_path, cli, small_training, module):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(small_training.to_yaml())
    out = tmp_path / "out"
    subprocess.run([cli, "run", str(scenario), "--out", str(out), "-q"], check=True, capture_output=True)
    p = subprocess.run([sys.executable, "-m", *module, str(out), "--out", str(tmp_path / "png")],
                       check=True, capture_output=True, text=True)
    written = sorted(os.path.basename(x) for x in p.stdout.split())
    assert written == ["breakdown.png", "links.png", "timeline.png"]
    for name in written:
        data = (tmp_path / "png" / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 5000


def test_plot_cli_on_traffic_folder(tmp_path, cli, small_traffic):
    scenario = tmp_path / "t.yaml"
    scenario.write_text(small_traffic.to_yaml())
    subprocess.run([cli, "run", str(scenario), "--out", str(tmp_path / "out"), "-q"], check=True, capture_output=True)
    p = subprocess.run([sys.executable, "-m", "weft.plot", str(tmp_path / "out")], check=True, capture_output=True,
                       text=True)
    assert p.stdout.split() == [str(tmp_path / "out" / "fct.png")]


def test_plot_cli_without_summary(tmp_path):
    p = subprocess.run([sys.executable, "-m", "weft.plot", str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 1 and "summary.json" in p.stderr
