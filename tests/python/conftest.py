"""Shared fixtures of the Python tests. Run through ctest (`make test`), which sets PYTHONPATH to
<build>/python and WEFT_CLI to the weft binary; by hand:
    PYTHONPATH=build/python WEFT_CLI=build/weft /usr/bin/python3 -m pytest tests/python"""
import os
import pathlib

import pytest

ROOT = pathlib.Path(os.environ.get("WEFT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))

# A small training step that runs in well under a second: GPT-2-like layers on 2 nodes of the lab
# cluster's boxes (4 GPUs each), one compare: variant.
SMALL_TRAINING = """\
name: small step
seed: 1
fabric: flow
system:
  name: pcie-3090x8-nvlink
  nodes: 2
  node: {gpus: 4, pcie_lanes: 8, nic: eth-25g}
  network: {technology: ethernet}
workload:
  model: {layers: 2, hidden: 1024, heads: 16, ffn: 4096, vocab: 32000, max_seq: 4096}
  parallel: {tp: 2}
  batch: {global: 8, micro: 1}
  seq_len: 1024
compare:
  - name: 100G RoCE
    set: {system.node.nic: eth-100g, system.network.technology: roce}
"""

SMALL_TRAFFIC = """\
name: small incast
seed: 1
fabric: flow
system:
  topology: single-switch
  ranks: 5
  link: {kind: ethernet, rate: 100Gbps, latency: 1us}
workload:
  traffic: incast
  senders: 4
  bytes: 1MB
"""


def pytest_configure(config):
    config.addinivalue_line("markers", "notebooks: executes the notebooks in notebooks/ (slow)")


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("WEFT_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("WEFT_CLI (the weft binary) not set")
    return path


@pytest.fixture(scope="session")
def small_training():
    import weft

    return weft.load(SMALL_TRAINING)


@pytest.fixture(scope="session")
def training_result(small_training):
    import weft

    return weft.run(small_training)


@pytest.fixture(scope="session")
def small_traffic():
    import weft

    return weft.load(SMALL_TRAFFIC)
