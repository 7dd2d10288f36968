#!/usr/bin/python3
"""Records a 2-rank DDP training run on the gloo backend (CPU) under torch.profiler.

Writes OUT_DIR/rank{r}.json.gz, one Chrome trace per rank, as Debian's python3-torch writes it
(1.13.1: a bare JSON array of events, no "traceEvents" object). Run with Debian's interpreter:

    /usr/bin/python3 tests/workloads/traces/gloo/record_gloo_ddp.py OUT_DIR

Exit status 77 when torch (or its gloo backend) is not importable, so ctest can report a skip.

The model is six bias-free Linear layers, so that every parameter is one tensor and the DDP buckets
(fp32, bucket_cap_mb=0.5, the 1 MiB first bucket) are known exactly; README.md derives them.
Three steps are profiled (torch 1.13 annotates them ProfilerStep#0, #0, #1): step 0 all-reduces every gradient in one bucket,
step 1 rebuilds the buckets (two broadcasts of bucket indices from rank 0), steps 1 and 2
all-reduce the three rebuilt buckets.

Debian's build has no Kineto (torch.autograd.kineto_available() is False), so export_chrome_trace
falls back to the legacy exporter, which drops every argument: no `cat`, `args: {}`, no input
shapes, no distributedInfo. The profiler did record the shapes and dtypes, so the recorder also
writes OUT_DIR/rank{r}.kineto.json.gz: the same profiler events laid out as a Kineto build writes
them (an object with distributedInfo and traceEvents; `cat` cpu_op / user_annotation; `Input Dims`
and `Input type` in args). That file is a mechanical transcription, not a Kineto output.
"""
import gzip
import json
import os
import socket
import sys
import warnings

SKIP = 77
WORLD = 2
STEPS = 3
BUCKET_CAP_MB = 0.5  # 524,288 B
# (in, out) features in forward order; the weight of Linear(i, o) holds i x o fp32 values.
LAYERS = [(64, 512), (512, 512), (512, 256), (256, 256), (256, 256), (256, 16)]
BATCH = 8


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_gz(path, text):
    # mtime=0 and no file name in the header: the same trace gzips to the same bytes.
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(text.encode())


def kineto_layout(result, rank, backend):
    """The profiler's events as libkineto's ChromeTraceLogger lays them out (torch 1.13)."""
    from torch.autograd import DeviceType

    USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: record_function ranges, work profiling titles
    t0 = result.trace_start_us()
    events = []
    for e in result.events():
        if e.device_type() != DeviceType.CPU:
            continue
        events.append({
            "ph": "X",
            "cat": "user_annotation" if e.scope() == USER_SCOPE else "cpu_op",
            "name": e.name(),
            "pid": os.getpid(),
            "tid": e.start_thread_id(),
            "ts": e.start_us() - t0,
            "dur": e.duration_us(),
            "args": {"Input Dims": e.shapes(), "Input type": e.dtypes()},
        })
    info = {"backend": backend, "rank": rank, "world_size": WORLD}
    return json.dumps({"schemaVersion": 1, "distributedInfo": info, "traceEvents": events})


def export(prof, rank, out_dir):
    import torch.distributed as dist

    plain = os.path.join(out_dir, f"rank{rank}.json")
    prof.export_chrome_trace(plain)
    with open(plain) as f:
        write_gz(plain + ".gz", f.read())
    os.remove(plain)
    result = prof.profiler.kineto_results
    write_gz(os.path.join(out_dir, f"rank{rank}.kineto.json.gz"), kineto_layout(result, rank, dist.get_backend()))


def worker(rank, port, out_dir):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    model = torch.nn.Sequential(*[torch.nn.Linear(i, o, bias=False) for i, o in LAYERS])
    ddp = DDP(model, bucket_cap_mb=BUCKET_CAP_MB)  # the parameter broadcast happens here, unprofiled
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(BATCH, LAYERS[0][0], generator=torch.Generator().manual_seed(rank))
    # A schedule makes the profiler annotate steps (ProfilerStep#N); warmup=0 keeps step 0, whose
    # single all-reduce of every gradient is one of the facts.
    warnings.filterwarnings("ignore", message="Profiler won't be using warmup")
    steps = schedule(wait=0, warmup=0, active=STEPS, repeat=1)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, schedule=steps,
                 on_trace_ready=lambda p: export(p, rank, out_dir)) as prof:
        for _ in range(STEPS):
            opt.zero_grad()
            ddp(x).square().mean().backward()
            opt.step()
            # gloo runs the all-reduces on its worker thread, whose profiler range of the last bucket
            # can still be closing when prof.step() ends the window on a loaded machine; a barrier
            # (gloo:barrier, not a collective the reader counts) queues behind it on that thread.
            dist.barrier()
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} OUT_DIR", file=sys.stderr)
        return 2
    try:
        import torch
        import torch.distributed as dist
        import torch.multiprocessing as mp
    except ImportError as e:
        print(f"skipped: torch is not importable ({e})", file=sys.stderr)
        return SKIP
    if not dist.is_available() or not dist.is_gloo_available():
        print("skipped: torch has no gloo backend", file=sys.stderr)
        return SKIP
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    mp.spawn(worker, args=(free_port(), out_dir), nprocs=WORLD, join=True)
    print(f"torch {torch.__version__}: wrote rank{{0..{WORLD - 1}}}.json.gz and .kineto.json.gz to {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
