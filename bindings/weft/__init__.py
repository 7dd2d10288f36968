"""weft: simulate a GPU cluster's fabric, collectives and training steps (C++ core, Python front door).

    import weft
    s = weft.load("scenarios/default.yaml")      # a nested dict (path, dict, YAML text, or None: bundled)
    s["workload"]["batch"]["global"] = 32
    r = weft.run(s)                               # GIL released while C++ runs
    r.summary, r.variants, r.collectives, r.ops, r.links, r.flows
    weft.plot.breakdown(r)
    weft.sweep(s, grid={"system.node.pcie_lanes": [8, 16]})
"""
from . import _core
from .api import bom, collective, ep, fabrics, plan_search, reduction_order, run, systems, validate
from .errors import ConfigError, ModelError
from .result import Result
from .scenario import Scenario, load
from .sweep import sweep
from .topology import Topology, topology

__version__ = "0.1.0"
__all__ = ["ConfigError", "ModelError", "Result", "Scenario", "Topology", "bom", "collective", "ep", "fabrics", "load",
           "plan_search", "plot", "reduction_order", "run", "sweep", "systems", "topology", "validate"]


def __getattr__(name):
    # weft.plot imports matplotlib: only when asked for.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'weft' has no attribute {name!r}")
