#!/usr/bin/env python3
"""Seed inputs for the fuzz targets, cut from ../shared/traces and the bundled scenarios.

    fuzz/make_seeds.py OUT_DIR [SHARED_TRACES_DIR]

Writes OUT_DIR/{chakra,kineto,scenario}/. The real traces are megabytes; the fuzzer wants inputs
of tens of kilobytes, so the big ones are cut down to valid, smaller traces (the first messages of
a Chakra ET, a time window of a Kineto trace around its first NCCL kernel launch, an ET without
the source text in its metadata). Several rank files go into one input joined by the separator of
fuzz/rank_files.h. `scripts/fuzz --reseed` minimises the seeds into fuzz/corpus (-merge=1).
"""
import glob
import gzip
import json
import os
import sys
import tarfile
import tempfile

SEP = b"\n--weft-fuzz-next-rank--\n"  # kRankSeparator in fuzz/rank_files.h
KINETO_BYTES = 48 << 10  # a cut Kineto trace stays under this (max_len in scripts/fuzz is 128 KiB)


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def varint(data, at):
    value, shift = 0, 0
    while True:
        b = data[at]
        value |= (b & 0x7F) << shift
        at += 1
        if b < 0x80:
            return value, at
        shift += 7


def et_prefix(data, messages):
    """The first `messages` length-delimited messages (GlobalMetadata + nodes) of a Chakra ET."""
    at = 0
    for _ in range(messages):
        if at >= len(data):
            break
        length, body = varint(data, at)
        at = body + length
    return data[:at]


def delimited(message):
    """A message with its varint length in front."""
    length, head = len(message), bytearray()
    while length >= 0x80:
        head.append(length & 0x7F | 0x80)
        length >>= 7
    head.append(length)
    return bytes(head) + message


def et_without_input_file(data):
    """The ET with the `input_file` attribute (the source text, ~26 KB) left out of GlobalMetadata."""
    length, at = varint(data, 0)
    meta, rest, kept, i = data[at:at + length], data[at + length:], b"", 0
    while i < len(meta):  # every GlobalMetadata field is length-delimited (version, attr)
        start = i
        _, i = varint(meta, i)
        size, i = varint(meta, i)
        i += size
        if b"input_file" not in meta[start:i]:
            kept += meta[start:i]
    return delimited(kept) + rest


def chakra_seeds(traces, tmp, out):
    astra = os.path.join(traces, "astra-sim")
    ar = [open(f, "rb").read() for f in sorted(glob.glob(f"{astra}/all_reduce_8npus_1MB/*.et"))]
    write(out, "all_reduce_rank0.et", ar[0])
    write(out, "all_reduce_8ranks.et", SEP.join(ar))
    write(out, "all_reduce_rank0.et.gz", gzip.compress(ar[0], mtime=0))
    ring = [open(f, "rb").read() for f in sorted(glob.glob(f"{astra}/custom_ring_allreduce_8npus_1MB/*.et"))]
    write(out, "custom_ring_rank0.et", ring[0])
    write(out, "custom_ring_8ranks.et", SEP.join(et_without_input_file(r) for r in ring))
    resnet = open(os.path.join(traces, "chakra/resnet50_ddp_2gpu.rank0.et"), "rb").read()
    for n in (2, 12, 40):
        write(out, f"resnet50_first{n}.et", et_prefix(resnet, n))
    with tarfile.open(os.path.join(traces, "chakra/resnet50_ddp_2gpu_json.tar.gz")) as t:
        t.extractall(tmp)
    write(out, "small_chakra.0.json", open(f"{tmp}/jsonData/small_chakra.0.json", "rb").read())
    full = json.load(open(f"{tmp}/jsonData/chakra.0.json"))
    for n in (20, 150):
        cut = dict(full, workload_graph=full["workload_graph"][:n])
        write(out, f"chakra_json_first{n}.json", json.dumps(cut).encode())


def kineto_window(trace, half_width_us):
    """Events around the first launch of an NCCL kernel: host events in the window, the GPU events
    they launched, metadata and the ProfilerStep annotation around it."""
    events = trace["traceEvents"]
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    centre = min(launches[e["args"]["correlation"]]["ts"] for e in events
                 if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower())
    lo, hi = centre - half_width_us, centre + half_width_us
    host = [e for e in events if e.get("cat") in ("cpu_op", "cuda_runtime", "user_annotation")
            and lo <= e.get("ts", 0) <= hi]
    kept_corr = {e["args"]["correlation"] for e in host if "correlation" in e.get("args", {})}
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation")
           and e.get("args", {}).get("correlation") in kept_corr]
    step = [e for e in events if "ProfilerStep" in e.get("name", "") and e["ts"] <= centre <= e["ts"] + e["dur"]]
    other = [e for e in events if e.get("ph") == "M"] + step
    return other + sorted(host + gpu, key=lambda e: e.get("ts", 0))


def cut_kineto(trace):
    """The trace with the widest window around its first NCCL kernel that fits KINETO_BYTES."""
    best = None
    for half_width_us in (5, 20, 50, 100, 200, 400, 800, 1600, 3200):
        cut = {k: v for k, v in trace.items() if k not in ("traceEvents", "deviceProperties", "INFO")}
        cut["traceEvents"] = kineto_window(trace, half_width_us)
        text = json.dumps(cut).encode()
        if len(text) > KINETO_BYTES:
            break
        best = (cut, text)
    return best


def kineto_seeds(traces, tmp, out):
    resnet = json.load(gzip.open(os.path.join(traces, "kineto/resnet_ddp_2gpu_a100.rank0.json.gz")))
    cut, text = cut_kineto(resnet)
    write(out, "resnet_ddp_rank0_window.json", text)
    write(out, "resnet_ddp_rank0_window.json.gz", gzip.compress(text, mtime=0))
    write(out, "resnet_ddp_rank0_bare_array.json", json.dumps(cut["traceEvents"]).encode())
    with tarfile.open(os.path.join(traces, "kineto/dlrm_8rank_kineto.tar.gz")) as t:
        t.extractall(tmp)
    ranks = []
    for rank in range(2):
        path = glob.glob(f"{tmp}/dlrm_kineto/worker{rank}_step_12.*.pt.trace.json")[0]
        ranks.append(cut_kineto(json.load(open(path)))[1])
    write(out, "dlrm_rank0_window.json", ranks[0])
    write(out, "dlrm_2ranks_window.json", SEP.join(ranks))


def scenario_seeds(scenarios, out):
    for path in sorted(glob.glob(f"{scenarios}/*.yaml") + glob.glob(f"{scenarios}/examples/*.yaml")):
        write(out, os.path.basename(path), open(path, "rb").read())


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1]
    traces = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "../../shared/traces")
    for target in ("chakra", "kineto", "scenario"):
        os.makedirs(os.path.join(out, target), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        chakra_seeds(traces, tmp, os.path.join(out, "chakra"))
        kineto_seeds(traces, tmp, os.path.join(out, "kineto"))
    scenario_seeds(os.path.join(here, "../scenarios"), os.path.join(out, "scenario"))


if __name__ == "__main__":
    main()
