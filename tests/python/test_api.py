"""The API round trip: load (file, dict, text, bundled), modify, copy, run; errors say where."""
import os
import pathlib

import pytest

import weft


def test_load_forms_agree(root, small_training):
    from_text = weft.load(small_training.to_yaml())
    from_dict = weft.load(dict(small_training))
    assert from_text == from_dict == small_training
    bundled = weft.load()
    from_file = weft.load(root / "scenarios" / "default.yaml")
    assert bundled == from_file
    assert from_file.path == str(root / "scenarios" / "default.yaml")
    assert from_file.lookup("system.node.nic") == "eth-25g"


def test_copy_is_deep(small_training):
    c = small_training.copy()
    c["workload"]["batch"]["global"] = 16
    c.set("system.network.port_gbps", 100)
    assert small_training["workload"]["batch"]["global"] == 8
    assert "port_gbps" not in small_training["system"]["network"]
    assert isinstance(c, weft.Scenario) and c.lookup("system.network.port_gbps") == 100


def test_round_trip_load_modify_run(small_training, training_result):
    assert training_result.kind == "training"
    assert training_result.names == ["baseline", "100G RoCE"]
    base_step = training_result.summary["variants"][0]["step_ms"]
    assert base_step > 0
    bigger = small_training.with_values({"workload.batch.global": 16})
    r = weft.run(bigger)
    # Twice the micro-batches per rank: more compute, so a longer step.
    assert r.summary["variants"][0]["step_ms"] > base_step
    again = weft.run(weft.load(small_training.to_yaml()))
    assert again.summary["variants"] == training_result.summary["variants"]  # deterministic


def test_summary_matches_cli_files(tmp_path, training_result, cli, small_training):
    import json
    import subprocess

    path = tmp_path / "s.yaml"
    path.write_text(small_training.to_yaml())
    subprocess.run([cli, "run", str(path), "--out", str(tmp_path / "out"), "-q"], check=True, capture_output=True)
    cli_summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert cli_summary["variants"] == training_result.summary["variants"]
    training_result.write(tmp_path / "py")
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.listdir(tmp_path / "out"))


def test_run_set_applies_to_every_variant(small_training):
    r = weft.run(small_training, set={"workload.seq_len": 512})
    assert len(r.variants) == 2
    assert (r.variants["step_ms"] < weft.run(small_training).variants["step_ms"]).all()


def test_config_error_in_file_carries_file_line_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nseed: 1\nfabric: flow\nsystem:\n  topology: single-switch\n  ranks: 4\n"
                    "  link: {kind: ethernet, rate: 100Gbps, latency: 1us}\n  colour: blue\n"
                    "workload:\n  collectives:\n    - {op: all_reduce, size: 1MB}\n")
    with pytest.raises(weft.ConfigError) as e:
        weft.load(path)
    assert isinstance(e.value, ValueError)
    assert e.value.file == str(path)
    assert e.value.line == 8
    assert e.value.key == "system.colour" or e.value.key == "colour"


def test_config_error_bad_value_has_key_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nsystem:\n  topology: single-switch\n  ranks: 4\n"
                    "  link: {kind: ethernet, rate: fast, latency: 1us}\n"
                    "workload:\n  collectives:\n    - {op: all_reduce, size: 1MB}\n")
    with pytest.raises(weft.ConfigError) as e:
        weft.run(path)
    assert e.value.file == str(path) and e.value.line == 5
    assert e.value.key is not None and "rate" in e.value.key


def test_config_error_from_changed_dict(small_training):
    s = small_training.with_values({"workload.parallel.tp": 3})
    with pytest.raises(weft.ConfigError) as e:
        weft.run(s)
    assert e.value.line is not None and e.value.yaml_text is not None
    assert e.value.yaml_text.splitlines()[e.value.line - 1].strip().startswith("tp")
    with pytest.raises(weft.ConfigError):
        s.validate()


def test_set_through_a_scalar_is_an_error(small_training):
    with pytest.raises(weft.ConfigError):
        small_training.with_values({"fabric.ecn.kmin_at_25g": "5KB"})


def test_scenario_relative_paths_follow_the_file(root):
    s = weft.load(root / "scenarios" / "examples" / "resnet50-trace-fabrics.yaml")
    assert s.base_dir == str(root / "scenarios" / "examples")
    moved = weft.load(dict(s))  # from a dict: relative to the working directory
    assert moved.base_dir == os.getcwd()
    assert pathlib.Path(s.source).name == "resnet50-trace-fabrics.yaml"


def test_traffic_and_collectives_runs(small_traffic):
    r = weft.run(small_traffic)
    assert r.kind == "traffic" and r.summary["summary"]["flows"] == 4
    c = weft.run({"name": "two", "system": {"topology": "ring", "ranks": 4,
                                            "link": {"kind": "nvlink", "rate": "400Gbps", "latency": "1us"}},
                  "workload": {"collectives": [{"op": "all_reduce", "size": "1MB"},
                                               {"op": "all_gather", "size": "4MB"}]}})
    assert c.kind == "collectives" and len(c.collectives) == 2
    assert c.variants["total_time_us"].iloc[0] == pytest.approx(c.collectives["time_us"].sum(), rel=1e-6)


def test_systems_topology_bom_collective():
    systems = weft.systems()
    assert {"dgx-h100", "pcie-3090x8-nvlink"} <= set(systems["name"])
    t = weft.topology("dgx-h100", nodes=2)
    assert t.gpus == 16 and (t.nodes["kind"] == "gpu").sum() == 16
    g = t.to_networkx()
    assert g.number_of_nodes() == len(t.nodes) and g.number_of_edges() == len(t.links)
    lines, cost = weft.bom("dgx-h100", nodes=2)
    assert len(lines) > 0 and cost["capital_usd"] > 0
    ring = weft.topology("ring", ranks=4, link_rate="100Gbps")
    assert ring.gpus == 4 and set(ring.links["rate_gbps"]) == {100.0}
