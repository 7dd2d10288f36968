"""A finished run: the summary.json content as a dict, and pandas DataFrames built lazily from the
C++ result (which stays in memory while the Result lives)."""
import functools
import io
import json
import warnings

import numpy as np
import pandas as pd

# Rows of `.ops` per variant before it keeps whole ranks only up to this many (ops_for() for more).
OPS_LIMIT = 2_000_000

_TRAFFIC_STATS = ["flows", "bytes", "fct_min_us", "fct_median_us", "fct_p99_us", "fct_max_us", "slowdown_mean",
                  "slowdown_p99", "makespan_us", "goodput_Gbps"]


class Result:
    """What weft.run() returns. `kind` is "training", "serving", "traffic" or "collectives"; `names` the baseline
    and each compare: variant, in file order (the `variant` column of every table)."""

    def __init__(self, handle, scenario=None):
        self._h = handle
        self.scenario = scenario
        self.kind = handle.kind
        self.names = list(handle.names())
        self.wall_seconds = handle.wall_seconds  # the C++ run alone

    def __repr__(self):
        return f"<weft.Result {self.kind}, {len(self.names)} variant(s): {', '.join(self.names)}>"

    @functools.cached_property
    def summary(self):
        """summary.json of `weft run --out` as a dict (a traffic or collectives run: the baseline's,
        with each compare: variant's own summary under "compare")."""
        s = json.loads(self._h.summary_json())
        if self.kind not in ("training", "serving") and len(self.names) > 1:
            s["compare"] = [json.loads(self._h.column_json(i)) for i in range(1, len(self.names))]
        return s

    @property
    def report(self):
        """The text report (report.txt)."""
        return self._h.report()

    def write(self, folder):
        """Writes what `weft run --out FOLDER` writes (summary.json last)."""
        self._h.write_files(str(folder))

    @functools.cached_property
    def variants(self):
        """One row per variant. Training: the columns of variants.csv (step_ms, speedup, compute_ms,
        exposed_<GROUP>_ms, idle_ms, tflops_per_gpu, mfu, capital_usd, usd_per_hour, usd_per_step,
        usd_per_million_tokens, perf_per_dollar; NaN where unpriced) plus communication_<GROUP>_ms,
        tokens_per_s, usd_per_gpu_hour and facility_power_w. Traffic: the FCT summary and the fabric
        counters. Collectives: the total time."""
        if self.kind == "training":
            return variants_frame(self.summary)
        if self.kind == "serving":
            return serving_frame(self.summary)
        rows = []
        for i, name in enumerate(self.names):
            s = json.loads(self._h.column_json(i))
            row = {"variant": name, "system": s.get("system", s.get("topology")), "ranks": s["ranks"],
                   "fabric": s["fabric"]}
            if self.kind == "traffic":
                row["traffic"] = s["traffic"]
                row.update({k: s["summary"][k] for k in _TRAFFIC_STATS})
                row.update(s["counters"])
            else:
                row["collectives"] = len(s["collectives"])
                row["total_time_us"] = s["total_time_us"]
            rows.append(row)
        return pd.DataFrame(rows)

    @functools.cached_property
    def collectives(self):
        """Training: one row per (variant, group, op, bytes, algorithm) with ranks, count, total_ms
        and mean_us (collectives.csv). A list of collectives: each one's nccl-tests row per variant."""
        if self.kind == "training":
            return collectives_frame(self.summary)
        if self.kind in ("traffic", "serving"):
            return pd.DataFrame(columns=["variant", "op", "bytes"])
        frames = []
        for i, name in enumerate(self.names):
            df = pd.read_csv(io.StringIO(self._h.column_csv(i)), dtype={"algorithm": str})
            df.insert(0, "variant", name)
            frames.append(df.rename(columns={"size": "bytes"}))
        return pd.concat(frames, ignore_index=True)

    @functools.cached_property
    def ops(self):
        """Every op of every rank and variant (training): rank, op, kind, stream, group, phase,
        collective, comm, peer, bytes, label, issued/start/end in us, duration_us. Per variant at most
        OPS_LIMIT rows of whole ranks (a warning says when fewer ranks came back): see ops_for()."""
        frames = [self.ops_for(v) for v in self.names] if self.kind == "training" else []
        return pd.concat(frames, ignore_index=True) if frames else _empty_ops()

    def ops_for(self, variant=None, ranks=None, limit=OPS_LIMIT):
        """The ops of one variant (name or index; default the baseline), of `ranks` (default all)."""
        i = self._index(variant)
        d = self._h.ops(i, list(ranks or []), int(limit))
        if not d:
            return _empty_ops()
        if d["truncated"]:
            warnings.warn(f"weft: ops of {self.names[i]!r} cut to whole ranks within {limit} rows; "
                          "use Result.ops_for(variant, ranks=[...]) for others", stacklevel=2)
        coll = d["collective"].astype(np.int16)
        coll[coll == 255] = -1
        df = pd.DataFrame({
            "variant": pd.Categorical.from_codes(np.full(len(d["rank"]), i, np.int16), categories=self.names),
            "rank": d["rank"], "op": d["op"],
            "kind": pd.Categorical.from_codes(d["kind"].astype(np.int16), categories=d["kinds"]),
            "stream": d["stream"],
            "group": pd.Categorical.from_codes(d["group"].astype(np.int16), categories=d["groups"]),
            "phase": pd.Categorical.from_codes(d["phase"].astype(np.int16), categories=d["phases"]),
            "collective": pd.Categorical.from_codes(coll, categories=d["collectives"]),
            "comm": d["comm"], "peer": d["peer"], "bytes": d["bytes"],
            "label": pd.Categorical.from_codes(d["label"].astype(np.int32), categories=_unique(d["labels"])),
            "issued_us": d["issued_us"], "start_us": d["start_us"], "end_us": d["end_us"],
        })
        df["duration_us"] = df["end_us"] - df["start_us"]
        return df

    @functools.cached_property
    def links(self):
        """The busiest links' utilisation over time (training runs, flow and packet fabrics): one row
        per (variant, link, bin) with time_us (bin start), bin_us and utilisation (0..1)."""
        frames = []
        for i, name in enumerate(self.names):
            d = self._h.links(i) if self.kind == "training" else {}
            if not d or not d["names"]:
                continue
            u = d["utilisation"]
            links, bins = u.shape
            frames.append(pd.DataFrame({
                "variant": name,
                "link": np.repeat(np.array(d["names"], dtype=object), bins),
                "rank_by_load": np.repeat(np.arange(links), bins),
                "bin": np.tile(np.arange(bins), links),
                "time_us": np.tile(np.arange(bins) * d["bin_us"], links),
                "bin_us": d["bin_us"],
                "utilisation": u.reshape(-1),
            }))
        if not frames:
            return pd.DataFrame({"variant": [], "link": [], "rank_by_load": pd.Series([], dtype=np.int64),
                                 "bin": pd.Series([], dtype=np.int64), "time_us": [], "bin_us": [],
                                 "utilisation": []})
        return pd.concat(frames, ignore_index=True)

    @functools.cached_property
    def flows(self):
        """A traffic pattern's flows: variant, src, dst, bytes, priority, start_us, fct_us, ideal_us,
        slowdown (the order given, per variant)."""
        frames = []
        for i, name in enumerate(self.names):
            d = self._h.flows(i) if self.kind == "traffic" else {}
            if d:
                df = pd.DataFrame(d)
                df.insert(0, "variant", name)
                frames.append(df)
        if not frames:
            return pd.DataFrame(columns=["variant", "src", "dst", "bytes", "priority", "start_us", "fct_us",
                                         "ideal_us", "slowdown"])
        return pd.concat(frames, ignore_index=True)

    @functools.cached_property
    def requests(self):
        """A serving run's requests: variant, arrival_s, prompt_tokens, output_tokens, ttft_ms, tpot_ms
        (0 for one-token answers), e2e_ms, preemptions (request order, per variant)."""
        frames = []
        for i, name in enumerate(self.names):
            d = self._h.requests(i) if self.kind == "serving" else {}
            if d:
                df = pd.DataFrame(d)
                df.insert(0, "variant", name)
                frames.append(df)
        if not frames:
            return pd.DataFrame(columns=["variant", "arrival_s", "prompt_tokens", "output_tokens", "ttft_ms", "tpot_ms",
                                         "e2e_ms", "preemptions"])
        return pd.concat(frames, ignore_index=True)

    @functools.cached_property
    def link_stats(self):
        """A traffic run's per-link packet counters (packet fabric), most paused first, per variant."""
        frames = []
        for i, name in enumerate(self.names):
            if self.kind != "traffic":
                break
            s = json.loads(self._h.column_json(i))
            if s["links"]:
                df = pd.DataFrame(s["links"])
                df.insert(0, "variant", name)
                frames.append(df)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["variant", "link"])

    def _index(self, variant):
        if variant is None:
            return 0
        if isinstance(variant, (int, np.integer)):
            if not 0 <= variant < len(self.names):
                raise IndexError(f"variant {variant}: the run has {len(self.names)}")
            return int(variant)
        try:
            return self.names.index(variant)
        except ValueError:
            raise KeyError(f"variant {variant!r}: the run has {self.names}") from None


def _unique(labels):
    """Category names must be unique; a repeated label (never expected) gets a suffix."""
    seen, out = {}, []
    for x in labels:
        n = seen.get(x, 0)
        seen[x] = n + 1
        out.append(x if n == 0 else f"{x} #{n + 1}")
    return out


def _empty_ops():
    return pd.DataFrame({c: [] for c in ["variant", "rank", "op", "kind", "stream", "group", "phase", "collective",
                                         "comm", "peer", "bytes", "label", "issued_us", "start_us", "end_us",
                                         "duration_us"]})


def variants_frame(summary):
    """A training summary.json's variants as rows (what variants.csv holds, and a little more)."""
    rows = []
    for v in summary["variants"]:
        row = {k: v[k] for k in ["name", "system", "gpus", "fabric", "model", "plan", "step_ms", "speedup",
                                 "compute_ms"]}
        row["variant"] = row.pop("name")
        row.update({f"exposed_{g}_ms": ms for g, ms in v["exposed_ms"].items()})
        row["idle_ms"] = v["idle_ms"]
        row.update({f"communication_{g}_ms": ms for g, ms in v["communication_ms"].items()})
        row.update({k: v[k] for k in ["tflops_per_gpu", "mfu", "tokens_per_s"]})
        cost = v.get("cost") or {}
        cluster, step = cost.get("cluster") or {}, cost.get("step") or {}
        row.update(capital_usd=cluster.get("capital_usd"), usd_per_hour=cluster.get("usd_per_hour"),
                   usd_per_gpu_hour=cluster.get("usd_per_gpu_hour"), facility_power_w=cluster.get("facility_power_w"),
                   usd_per_step=step.get("usd_per_step"), usd_per_million_tokens=step.get("usd_per_million_tokens"),
                   perf_per_dollar=cost.get("performance_per_dollar_vs_first"))
        memory = v.get("memory") or {}
        row.update({f"memory_{k[:-6]}_gib": memory.get(k, float("nan")) / 2**30
                    for k in ["weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes",
                              "fixed_bytes", "total_bytes", "capacity_bytes"]})
        row["memory_fits"] = memory.get("fits")
        rows.append(row)
    df = pd.DataFrame(rows)
    floats = [c for c in df.columns if c.endswith(("_ms", "_usd", "_w", "_hour", "_step", "_tokens", "_s"))]
    floats += ["speedup", "tflops_per_gpu", "mfu", "perf_per_dollar"]
    df = df.astype({c: "float64" for c in floats})
    return df.astype({"gpus": "int64"})


def serving_frame(summary):
    """A serving summary.json's runs as rows: throughput, goodput, the latencies' p50 and p99, the
    replicas' state and the cost per million tokens (NaN where unpriced)."""
    rows = []
    for r in summary["runs"]:
        row = {k: r[k] for k in ["name", "requests", "input_tokens", "output_tokens", "duration_s", "requests_per_s",
                                 "output_tokens_per_s", "total_tokens_per_s", "goodput_requests_per_s", "busy", "mfu",
                                 "mean_batch", "mean_kv", "peak_kv", "preemptions", "kv_tokens"]}
        for metric in ["ttft", "tpot", "itl", "e2e"]:
            for stat in ["mean", "p50", "p90", "p99"]:
                row[f"{metric}_{stat}_ms"] = r[metric][f"{stat}_ms"]
        cost = r.get("usd_per_million_tokens", {})
        row["usd_per_m_input"] = cost.get("input", float("nan"))
        row["usd_per_m_output"] = cost.get("output", float("nan"))
        rows.append(row)
    return pd.DataFrame(rows).rename(columns={"name": "variant"})


def collectives_frame(summary):
    """A training summary.json's collectives, one row per (variant, group, op, bytes, algorithm)."""
    rows = [{"variant": v["name"], **{k: c[k] for k in ["group", "op", "bytes", "ranks", "count", "total_ms"]},
             "mean_us": c["total_ms"] * 1e3 / c["count"] if c["count"] else float("nan"),
             "algorithm": c["algorithm"]}
            for v in summary["variants"] for c in v["collectives"]]
    columns = ["variant", "group", "op", "bytes", "ranks", "count", "total_ms", "mean_us", "algorithm"]
    df = pd.DataFrame(rows, columns=columns)
    return df.astype({"bytes": "int64", "ranks": "int64", "count": "int64", "total_ms": "float64",
                      "mean_us": "float64"})
