"""weft.sweep(): a grid of scenario changes, one run per combination, on local processes or a Dask
cluster. Each point travels as YAML text and comes back as plain rows (no C++ objects cross
processes); a failing point reports its error in its row."""
import concurrent.futures
import itertools
import os
import traceback

import pandas as pd

from .scenario import Scenario, load


def _run_point(task):
    """Runs one point (in a worker): its rows, one per variant, or one row with the error."""
    index, text, source, busiest_links = task
    try:
        from . import _core
        from .result import Result

        result = Result(_core.run(text, source, [], busiest_links, False))
        return index, result.variants.to_dict("records"), None
    except Exception as e:  # a point's failure is data, not the sweep's
        return index, [], f"{type(e).__name__}: {e}" if str(e) else traceback.format_exc(limit=2)


def _points(base, grid):
    """(inputs, task or error) per combination; the first key varies slowest."""
    keys = list(grid)
    for index, values in enumerate(itertools.product(*(list(grid[k]) for k in keys))):
        inputs = dict(zip(keys, values))
        try:
            s = base.with_values(inputs)
            yield inputs, (index, s.to_yaml(), s.source, 0), None
        except Exception as e:
            yield inputs, None, f"{type(e).__name__}: {e}"


def sweep(base, grid, client=None, *, workers=None):
    """Runs `base` (a Scenario, path, dict or YAML text) once per combination of `grid`
    ({"dotted.key": [values, ...]}) and returns a DataFrame: the inputs, then `variant` and the
    metrics of Result.variants (one row per compare: variant of each point), then `error` (None, or
    why the point failed: its other columns are then empty). Rows come in grid order whatever ran
    first.

    client: a dask.distributed Client (a LocalCluster or a cluster's scheduler); weft must be
    importable on its workers (a script that starts a LocalCluster needs the usual
    `if __name__ == "__main__":` guard: Dask spawns its workers). Without one: `workers` local
    processes (default: the CPUs; 1 runs in this process)."""
    base = base if isinstance(base, Scenario) else load(base)
    points = list(_points(base, grid))
    tasks = [t for _, t, _ in points if t is not None]
    outcomes = {}
    if client is not None:
        futures = client.map(_run_point, tasks, pure=False)
        for task, f in zip(tasks, futures):
            try:
                index, rows, error = f.result()
            except Exception as e:  # the worker died (KilledWorker, ...)
                index, rows, error = task[0], [], f"{type(e).__name__}: {e}"
            outcomes[index] = (rows, error)
    elif (workers or os.cpu_count() or 1) <= 1 or len(tasks) <= 1:
        for t in tasks:
            index, rows, error = _run_point(t)
            outcomes[index] = (rows, error)
    else:
        # The platform's start method (fork on Linux): scripts need no `if __name__ == "__main__":`.
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_point, t): t for t in tasks}
            for f, t in futures.items():
                try:
                    index, rows, error = f.result()
                except Exception as e:  # a worker crashed
                    index, rows, error = t[0], [], f"{type(e).__name__}: {e}"
                outcomes[index] = (rows, error)
    records = []
    for index, (inputs, task, error) in enumerate(points):
        rows, run_error = outcomes.get(index, ([], None)) if task is not None else ([], None)
        error = error or run_error
        if not rows:
            records.append({**inputs, "error": error})
        for row in rows:
            records.append({**inputs, **row, "error": None})
    df = pd.DataFrame.from_records(records)
    if "error" in df:
        df["error"] = df["error"].astype(object).where(df["error"].notna(), None)
        df = df[[c for c in df.columns if c != "error"] + ["error"]]
    return df
