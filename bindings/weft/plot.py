"""Plots of weft results (matplotlib; the Agg backend unless one is chosen already), and
`python3 -m weft.plot OUT_DIR`: PNGs from a `weft run --out` folder."""
import json
import os
import sys

import matplotlib

if "MPLBACKEND" not in os.environ and "ipykernel" not in sys.modules:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

GROUPS = ["DP", "TP", "PP", "CP", "EP"]
_COLOURS = {"compute": "#4c72b0", "DP": "#dd8452", "TP": "#55a868", "PP": "#c44e52", "CP": "#8172b3",
            "EP": "#937860", "other": "#da8bc3", "none": "#8c8c8c", "idle": "#d0d0d0", "comm": "#dd8452"}


def _variants(source):
    from .result import Result

    return source.variants if isinstance(source, Result) else source


def breakdown(result, ax=None, title=None):
    """Stacked bars per variant: compute, exposed communication per group, idle/bubble (ms, mean per
    rank). `result`: a training Result or its .variants DataFrame (variants.csv)."""
    df = _variants(result)
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 0.5 * len(df) + 1.5))
    groups = [c.removeprefix("exposed_").removesuffix("_ms") for c in df.columns
              if c.startswith("exposed_") and c.endswith("_ms")]
    parts = [("compute_ms", "compute", "compute")]
    parts += [(f"exposed_{g}_ms", f"exposed {g}", g) for g in groups if df[f"exposed_{g}_ms"].abs().sum() > 0]
    parts.append(("idle_ms", "idle / bubble", "idle"))
    left = np.zeros(len(df))
    y = np.arange(len(df))
    for col, label, key in parts:
        ax.barh(y, df[col].to_numpy(), left=left, label=label, color=_COLOURS.get(key))
        left += df[col].to_numpy()
    for yi, total in zip(y, df["step_ms"].to_numpy()):
        ax.text(total, yi, f" {total:.0f}", va="center", fontsize=8)
    return _finish_bars(ax, df, "step time (ms)", title or "where the step's time goes")


def _finish_bars(ax, df, xlabel, title):
    """One horizontal bar per variant, the first at the top; labels, legend and layout."""
    ax.set_yticks(np.arange(len(df)), df["variant"])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


_MEMORY_PARTS = [("weights", "#4c72b0"), ("gradients", "#dd8452"), ("optimizer", "#55a868"),
                 ("activations", "#c44e52"), ("fixed", "#8c8c8c")]


def memory(result, ax=None, title=None):
    """Stacked bars per variant of the busiest GPU's memory (GiB): weights, gradients, optimizer
    states, activations and fixed costs, with each GPU's capacity marked; a variant that does not fit
    is labelled so. `result`: a training Result or its .variants DataFrame."""
    df = _variants(result)
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 0.5 * len(df) + 1.5))
    y = np.arange(len(df))
    left = np.zeros(len(df))
    for part, colour in _MEMORY_PARTS:
        values = df[f"memory_{part}_gib"].fillna(0).to_numpy()
        ax.barh(y, values, left=left, label=part, color=colour)
        left += values
    capacity = df["memory_capacity_gib"].to_numpy()
    ax.scatter(capacity, y, marker="|", s=400, color="black", label="capacity", zorder=3)
    for yi, total, cap in zip(y, left, capacity):
        ax.text(total, yi, f" {total:.1f}" + (" (does not fit)" if total > cap else ""), va="center", fontsize=8)
    return _finish_bars(ax, df, "memory per GPU (GiB)", title or "does the plan fit?")


def pareto(df, time="step_ms", cost="capital_usd"):
    """The rows no other row beats on both `time` and `cost` (as `weft plan` draws its frontier),
    cheapest first."""
    priced = df.dropna(subset=[time, cost]).sort_values([cost, time])
    best, keep = float("inf"), []
    for index, row in priced.iterrows():
        if row[time] < best:
            best = row[time]
            keep.append(index)
    return priced.loc[keep]


def frontier(result, time="step_ms", cost="capital_usd", ax=None, title=None):
    """Time against money per variant (`cost`: capital_usd, usd_per_step, usd_per_million_tokens),
    the Pareto frontier joined: what `weft plan` searches. `result`: a Result or .variants."""
    df = _variants(result)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter(df[cost], df[time], color=_COLOURS["compute"])
    for _, row in df.iterrows():
        ax.annotate(str(row["variant"]), (row[cost], row[time]), fontsize=7, xytext=(4, 4), textcoords="offset points")
    front = pareto(df, time, cost)
    ax.plot(front[cost], front[time], color=_COLOURS["DP"], drawstyle="steps-post", label="frontier")
    ax.set_xlabel(cost.replace("_", " "))
    ax.set_ylabel(time.replace("_", " "))
    ax.set_title(title or "time against money")
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


def busbw(df, measured=None, ax=None, by=None, title=None):
    """busbw (GB/s) against size (bytes, log2 x axis). `df`: weft.collective()'s table (or several,
    with a column `by` naming each curve); `measured`: rows with size or bytes and busbw_GBps
    (e.g. ../shared/validation/collectives.csv), drawn as points, grouped by `by` when it has it."""
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = df.groupby(by, sort=False) if by else [(df.attrs.get("system", "weft"), df)]
    colours = {}
    for name, g in groups:
        line, = ax.plot(g["size"], g["busbw_GBps"], marker=".", label=f"{name} (weft)")
        colours[name] = line.get_color()
    if measured is not None:
        m = measured.rename(columns={"bytes": "size"})
        mgroups = m.groupby(by, sort=False) if by and by in m else [(None, m)]
        for name, g in mgroups:
            ax.scatter(g["size"], g["busbw_GBps"], marker="x", color=colours.get(name, "black"),
                       label=f"{name} (measured)" if name is not None else "measured")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    ax.set_title(title or f"{df.attrs.get('op', 'collective')} bus bandwidth")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


def links(result, variant=None, ax=None, title=None):
    """Heat map of the busiest links' utilisation over the step (rows: links, busiest first).
    `result`: a Result or its .links DataFrame."""
    from .result import Result

    df = result.links if isinstance(result, Result) else result
    if variant is None and len(df):
        variant = df["variant"].iloc[0]
    d = df[df["variant"] == variant] if len(df) else df
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 4))
    if not len(d):
        ax.text(0.5, 0.5, "no link utilisation recorded\n(flow or packet fabric, busiest_links > 0)",
                ha="center", va="center")
        ax.set_axis_off()
        return ax.figure
    m = d.pivot_table(index="rank_by_load", columns="bin", values="utilisation", aggfunc="first")
    names = d.drop_duplicates("rank_by_load").set_index("rank_by_load")["link"].reindex(m.index)
    bin_us = float(d["bin_us"].iloc[0])
    im = ax.imshow(100 * m.to_numpy(), aspect="auto", interpolation="nearest", cmap="viridis", vmin=0, vmax=100,
                   extent=(0, m.shape[1] * bin_us / 1e3, len(m) - 0.5, -0.5))
    ax.set_yticks(np.arange(len(m)), [str(n)[:48] for n in names], fontsize=6)
    ax.set_xlabel("time (ms)")
    ax.set_title(title or f"busiest links: utilisation — {variant}")
    ax.figure.colorbar(im, ax=ax, label="utilisation (%)")
    ax.figure.tight_layout()
    return ax.figure


def timeline(result, variant=None, ranks=None, ax=None, title=None, max_ranks=8):
    """Gantt chart of ops per rank and stream (compute, and communication coloured by group).
    `result`: a training Result or an ops DataFrame (rank, stream, kind, group, start_us, end_us)."""
    from .result import Result

    if isinstance(result, Result):
        ranks = list(ranks) if ranks is not None else list(range(min(max_ranks, _ranks_of(result))))
        ops = result.ops_for(variant, ranks=ranks)
        name = variant or result.names[0]
    else:
        ops, name = result, variant
        if variant is not None and "variant" in ops:
            ops = ops[ops["variant"] == variant]
        keep = sorted(ops["rank"].unique())[:max_ranks] if ranks is None else list(ranks)
        ops = ops[ops["rank"].isin(keep)]
    rows = ops[["rank", "stream"]].drop_duplicates().sort_values(["rank", "stream"]).to_numpy().tolist()
    index = {tuple(r): i for i, r in enumerate(rows)}
    if ax is None:
        fig, ax = plt.subplots(figsize=(11, 0.3 * len(rows) + 1.5))
    key = np.where(ops["kind"].astype(str) == "compute", "compute", ops["group"].astype(str))
    for k in pd.unique(key):
        sel = ops[key == k]
        y = [index[(r, s)] for r, s in zip(sel["rank"], sel["stream"])]
        ax.barh(y, (sel["end_us"] - sel["start_us"]) / 1e3, left=sel["start_us"] / 1e3, height=0.8,
                color=_COLOURS.get(k, None), label=k, linewidth=0)
    ax.set_yticks(range(len(rows)), [f"rank {r} s{s}" for r, s in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.set_title(title or f"timeline — {name}")
    ax.legend(fontsize=8, loc="upper right")
    ax.figure.tight_layout()
    return ax.figure


def fct(result, ax=None, title=None):
    """CDF of flow completion times per variant (a traffic Result or its .flows DataFrame)."""
    from .result import Result

    flows = result.flows if isinstance(result, Result) else result
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, g in flows.groupby("variant", sort=False):
        x = np.sort(g["fct_us"].to_numpy())
        ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=str(name))
    ax.set_xlabel("flow completion time (us)")
    ax.set_ylabel("fraction of flows")
    ax.set_title(title or "flow completion times")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


def _ranks_of(result):
    return int(result.summary["variants"][0]["gpus"]) if result.kind == "training" else 0


def read_trace(path):
    """A trace.json of `weft run --out` as (ops, links) DataFrames in the shapes plot.timeline and
    plot.links take: its op events ("X") and its link-utilisation counters."""
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    links_pid = next((p for p, n in procs.items() if n.startswith("links")), None)
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    xs = [e for e in events if e.get("ph") == "X"]
    ops = pd.DataFrame({
        "rank": [e["pid"] for e in xs], "stream": [e["tid"] for e in xs],
        "kind": ["compute" if e.get("cat") == "compute" else "comm" for e in xs],
        "group": [_group_of(threads.get((e["pid"], e["tid"]), "")) for e in xs],
        "label": [e["name"] for e in xs],
        "start_us": [float(e["ts"]) for e in xs], "end_us": [float(e["ts"]) + float(e["dur"]) for e in xs],
    })
    samples = [e for e in events if e.get("ph") == "C" and e.get("pid") == links_pid and links_pid is not None]
    return ops, _links_from_counters(samples)


def _group_of(thread_name):
    up = thread_name.upper()
    return next((g for g in GROUPS if up.startswith(g)), "other")


def _links_from_counters(samples):
    """Counter samples (one where the value changes) back to equal bins: the bin is the smallest
    gap between two samples of any link."""
    cols = ["variant", "link", "rank_by_load", "bin", "time_us", "bin_us", "utilisation"]
    if not samples:
        return pd.DataFrame(columns=cols)
    s = pd.DataFrame({"link": [e["name"] for e in samples], "ts": [float(e["ts"]) for e in samples],
                      "u": [float(e["args"]["util %"]) / 100 for e in samples]})
    gaps = s.groupby("link", sort=False)["ts"].diff().dropna()
    gaps = gaps[gaps > 0]
    bin_us = float(gaps.min()) if len(gaps) else 1.0
    end = s["ts"].max()
    bins = max(1, int(round(end / bin_us)))
    frames = []
    for rank, (name, g) in enumerate(s.groupby("link", sort=False)):
        starts = np.arange(bins) * bin_us
        idx = np.searchsorted(g["ts"].to_numpy(), starts + bin_us / 2, side="right") - 1
        u = np.where(idx >= 0, g["u"].to_numpy()[np.clip(idx, 0, None)], 0.0)
        frames.append(pd.DataFrame({"variant": "baseline", "link": name, "rank_by_load": rank,
                                    "bin": np.arange(bins), "time_us": starts, "bin_us": bin_us, "utilisation": u}))
    return pd.concat(frames, ignore_index=True)


def plot_folder(folder, out=None):
    """PNGs from a `weft run --out` folder into `out` (default: the folder itself): breakdown.png
    (variants.csv), timeline.png and links.png (trace.json), fct.png (a traffic run's results.csv).
    Returns the paths written."""
    out = out or folder
    os.makedirs(out, exist_ok=True)
    written = []

    def save(fig, name):
        path = os.path.join(out, name)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    summary_path = os.path.join(folder, "summary.json")
    if not os.path.exists(summary_path):
        raise FileNotFoundError(f"{folder}: no summary.json (not a finished `weft run --out` folder)")
    with open(summary_path, encoding="utf-8") as f:
        summary = json.load(f)
    if "variants" in summary:  # a training run (summary.json rather than variants.csv: names may hold commas)
        from .result import variants_frame

        save(breakdown(variants_frame(summary), title=summary.get("scenario")), "breakdown.png")
    trace = os.path.join(folder, "trace.json")
    if os.path.exists(trace):
        ops, link_df = read_trace(trace)
        save(timeline(ops, title=f"timeline — {summary.get('scenario', '')}"), "timeline.png")
        save(links(link_df), "links.png")
    if "flows" in summary and os.path.exists(os.path.join(folder, "results.csv")):
        flows = pd.read_csv(os.path.join(folder, "results.csv"))
        flows.insert(0, "variant", summary.get("scenario", "baseline"))
        save(fct(flows), "fct.png")
    return written


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="weft-plot", description="PNGs from a `weft run --out DIR` folder")
    p.add_argument("folder", help="the folder `weft run --out` wrote")
    p.add_argument("--out", help="where to write the PNGs (default: the folder)")
    a = p.parse_args(argv)
    try:
        for path in plot_folder(a.folder, a.out):
            print(path)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print(f"weft-plot: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
