"""weft.run, weft.collective, weft.systems, weft.topology, weft.bom: thin wrappers over weft._core."""
import json
import threading

import pandas as pd

from . import _core
from .errors import ConfigError
from .result import Result
from .scenario import Scenario, _annotated, load


def _sets(values):
    """{"a.b": 1} or ["a.b=1"] -> ["a.b=1"] (YAML scalars as the CLI's --set takes them)."""
    if not values:
        return []
    if isinstance(values, dict):
        return [f"{k}={_scalar(v)}" for k, v in values.items()]
    return [str(v) for v in values]


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def run(scenario=None, *, set=None, busiest_links=16):
    """Runs a scenario (a Scenario, path, dict or YAML text; None: the bundled default) in C++ with
    the GIL released; returns a Result. `set`: {dotted.key: value} laid over the base and every
    variant, like `weft run --set`. `busiest_links`: how many links' utilisation to record."""
    s = scenario if isinstance(scenario, Scenario) else load(scenario, validate=False)
    text = s.to_yaml()
    main = threading.current_thread() is threading.main_thread()
    try:
        handle = _core.run(text, s.source, _sets(set), int(busiest_links), main)
    except ConfigError as e:
        raise _annotated(e, s, text) from None
    return Result(handle, s)


def plan_search(scenario=None, *, top=None, isolated=None, set=None):
    """The best parallel plan for a training scenario on its own cluster, as `weft plan --search
    parallel` finds it: a DataFrame, one row per plan that runs and fits in memory (tp, pp, dp, cp,
    ep, zero, recompute, micro_batch, virtual_stages, sequence_parallel, step_ms on the scenario's
    fabric for the top plans, isolated_ms for the plans ranked with collectives simulated alone,
    model_ms for those screened with NCCL's estimate of each collective, mfu, memory_gib,
    usd_per_step), best first. Its `attrs` hold the counts (considered, impossible, too_big,
    screened, isolated, finals), the cluster (gpus, nvlink_domain) and `table`, the text the CLI
    prints. `isolated`: how many of the screen's best are ranked with collectives simulated alone
    (default: the scenario's `plan: {isolated: N}`, else 16, as `--isolated`; 0: every plan, no
    screen).

    For a serving scenario, every layout of the model over its GPUs (tp x pp or ep replicas,
    disaggregated pools) serving its requests, in the order tried: plan, rate, attainment, meets (90 %
    of requests within the SLO), output_tokens_per_s, total_tokens_per_s, ttft_p50_ms, tpot_p50_ms,
    usd_per_hour, usd_per_m_output; `attrs` hold gpus, `table` and `answer` (the cheapest meeting
    the SLO, or None)."""
    s = scenario if isinstance(scenario, Scenario) else load(scenario, validate=False)
    text = s.to_yaml()
    try:
        found = _core.search_plans(text, s.source, _sets(set), int(top or 0),
                                   None if isolated is None else int(isolated))
    except ConfigError as e:
        raise _annotated(e, s, text) from None
    frame = pd.DataFrame(found.pop("rows"))
    frame.attrs.update(found)
    return frame


def validate(scenario):
    """Checks a scenario and its compare: variants without running them; their names."""
    s = scenario if isinstance(scenario, Scenario) else load(scenario, validate=False)
    return s.validate()


def systems():
    """The system catalogue: a DataFrame of name, description."""
    return pd.DataFrame(_core.systems(), columns=["name", "description"])


def collective(system=None, nodes=None, op="all_reduce", sizes=("8", "128M"), factor=2, fabric="flow", *,
               set=None, topology="single-switch", ranks=8, link_rate="400Gbps", latency="1us", channels=None,
               chunk="0", algo=None, proto=None, nccl_version=None, seed=1, pxn=False, routing="ecmp",
               calibration=None, gpus_per_thread=1):
    """An nccl-tests-style sweep, as `weft collective` prints it: one row per size with size, count,
    type, time_us, algbw_GBps, busbw_GBps, transfers, algorithm (what ran), note.

    With `system` (a catalogue name), every size runs what NCCL's tuner picks (algo/proto/channels
    override it); without, `topology` of `ranks` GPUs with `link_rate`/`latency` links runs ring
    algorithms on `channels` rings. `sizes`: (min, max) stepped by `factor`, or a list of sizes
    (numbers of bytes or text such as "1M"). `calibration`: a PROFILE.network.yaml from `weft calibrate`;
    sizes whose series was measured take the fitted time (note "calibrated"), as `--calibration`.
    `gpus_per_thread`: nccl-tests -g, the GPUs one host thread launches on; a size takes at least that
    many kernel launches (note "host-bound: ...")."""
    kw = dict(op=op, factor=int(factor), fabric=fabric, system=system or "", nodes=int(nodes or 0),
              sets=_sets(set), topology=topology, ranks=int(ranks), link_rate=str(link_rate), latency=str(latency),
              channels=int(channels or 0), chunk=str(chunk), algo=algo or "", proto=proto or "",
              nccl_version=nccl_version or "", seed=int(seed), pxn=bool(pxn), routing=routing,
              calibration=str(calibration or ""), gpus_per_thread=int(gpus_per_thread))
    if isinstance(sizes, (tuple,)) and len(sizes) == 2:
        parts = [_core.collective(min_bytes=str(sizes[0]), max_bytes=str(sizes[1]), **kw)]
    else:
        sizes = [sizes] if isinstance(sizes, (str, int)) else list(sizes)
        parts = [_core.collective(min_bytes=str(b), max_bytes=str(b), **kw) for b in sizes]
    frames = []
    for d in parts:
        df = pd.DataFrame({k: d[k] for k in ["size", "count", "time_us", "algbw_GBps", "busbw_GBps", "transfers",
                                             "algorithm", "note"]})
        df.insert(2, "type", "float")
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df = df.astype({"size": "int64", "count": "int64", "transfers": "int64"})
    df.attrs.update(op=parts[0]["op"], ranks=parts[0]["ranks"], system=system or topology, nodes=nodes,
                    fabric=fabric)
    return df


def reduction_order(system, nodes=None, sizes=("8", "128M"), factor=8, *, set=None, elements=65536,
                    heavy_tailed=False, seed=1):
    """Why identical runs differ: for each all-reduce size on a catalogue system, the algorithm NCCL's
    tuner picks and the order it sums each element in, and seeded inputs summed in that exact order in
    fp32 and bf16 (max/rms difference from the exactly rounded sum, in ulps of sum|x|; elements whose
    order and bits change from the previous size). The text `weft collective --reduction-order` prints."""
    return _core.reduction_order(system, int(nodes or 0), _sets(set), str(sizes[0]), str(sizes[1]), int(factor),
                                 int(elements), bool(heavy_tailed), int(seed))


def ep(system, nodes=None, *, set=None, kernel="normal", phase="both", tokens=4096, hidden=7168, experts=256,
       topk=8, topk_groups=0, fabric="flow", seed=1):
    """MoE dispatch and combine as DeepEP's kernels run them, as `weft ep` prints them: one row per phase
    with time_us, bandwidth_GBps (DeepEP's: its counted bytes per rank over the time, counted_as NVLink
    on one node or RDMA across), nvlink_bytes_per_rank and network_bytes_per_rank. `kernel`: "normal"
    or "low-latency"; `topk_groups`: the nodes a token may use (0: any)."""
    d = _core.ep(system=system, nodes=int(nodes or 0), sets=_sets(set), kernel=kernel, phase=phase,
                 tokens=int(tokens), hidden=int(hidden), experts=int(experts), topk=int(topk),
                 topk_groups=int(topk_groups), fabric=fabric, seed=int(seed))
    df = pd.DataFrame({k: d[k] for k in ["phase", "time_us", "bandwidth_GBps", "counted_as", "nvlink_bytes_per_rank",
                                         "network_bytes_per_rank"]})
    df.attrs.update(system=system, nodes=d["nodes"], ranks=d["ranks"], kernel=kernel,
                    node_probability=d["node_probability"], rank_probability=d["rank_probability"])
    return df


def bom(system, nodes=None, *, set=None):
    """A catalogue system's bill of materials priced with the bundled prices (`weft topo --bom`):
    (lines DataFrame: item, what, count, included, group; cost dict as summary.json's cluster cost,
    or None when an item has no price: lines.attrs["missing"] names them)."""
    d = _core.bom(system, int(nodes or 0), _sets(set))
    b = json.loads(d["bom"])
    lines = pd.DataFrame(b.get("lines", []))
    lines.attrs.update({k: v for k, v in b.items() if k != "lines"}, missing=list(d["missing"]))
    return lines, json.loads(d["cost"])


def fabrics():
    """The fabric models (names and descriptions), as text."""
    return _core.fabrics()
