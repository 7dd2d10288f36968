"""weft.topology(): a built machine as node and link tables, and as a networkx graph."""
import pandas as pd

from . import _core
from .api import _sets


class Topology:
    """Nodes (GPUs, CPUs, PCIe switches, NVSwitches, NICs, network switches) and directed links
    (a full-duplex cable is two rows). Built by the same C++ builders a run uses."""

    def __init__(self, d):
        self.name = d["name"]
        self.description = d["description"]
        self.gpus = d["gpus"]
        self.bisection_gbps = d["bisection_gbps"]
        self.nodes = pd.DataFrame(d["nodes"])
        self.nodes.index.name = "node"
        links = pd.DataFrame(d["links"])
        links.index.name = "link"
        links.insert(2, "src_name", self.nodes["name"].to_numpy()[links["src"].to_numpy()])
        links.insert(3, "dst_name", self.nodes["name"].to_numpy()[links["dst"].to_numpy()])
        self.links = links

    def __repr__(self):
        return f"<weft.Topology {self.name}: {len(self.nodes)} nodes, {len(self.links)} links, {self.gpus} GPUs>"

    def to_networkx(self):
        """A networkx.MultiDiGraph: nodes by index with their columns as attributes, one edge per
        directed link (key = link id) with kind, rate_gbps, latency_ns, ..."""
        import networkx as nx

        g = nx.MultiDiGraph(name=self.name, description=self.description)
        for i, row in enumerate(self.nodes.to_dict("records")):
            g.add_node(i, **row)
        for lid, row in zip(self.links.index, self.links.to_dict("records")):
            src, dst = row.pop("src"), row.pop("dst")
            g.add_edge(src, dst, key=int(lid), **row)
        return g


def topology(name, nodes=None, *, set=None, ranks=8, link_rate="400Gbps", latency="1us"):
    """A catalogue system (`nodes`, `set={"node.pcie_lanes": 8}`) or a generic topology
    ("single-switch" | "ring" of `ranks` GPUs with `link_rate`/`latency` links)."""
    return Topology(_core.topology(name, int(nodes or 0), _sets(set), int(ranks), str(link_rate), str(latency)))
