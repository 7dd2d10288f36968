#!/usr/bin/env bash
# The sweep over a shaped network: two network namespaces joined by a veth pair, each side shaped
# by tc netem (1 Gbit/s, 100 us), ranks 0-1 in one namespace and 2-3 in the other, MPI over TCP only.
# Skips with a message (exit 0) when namespaces, veth, netem or MPI across them are not available.
# Usage: veth_sweep.sh WEFT WEFT_EXEC_MPI WORKDIR (WORKDIR holds lowered/schedule.json)
set -uo pipefail
weft=$1
exec_mpi=$2
work=$3
skip() { echo "veth_sweep: skipped: $*"; cleanup; exit 0; }
cleanup() { ip netns del weft_a 2>/dev/null; ip netns del weft_b 2>/dev/null; true; }
[[ $(id -u) -eq 0 ]] || skip "needs root"
command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip/tc"
cleanup
ip netns add weft_a && ip netns add weft_b || skip "ip netns add failed"
ip link add weft_va type veth peer name weft_vb || skip "no veth"
ip link set weft_va netns weft_a && ip link set weft_vb netns weft_b || skip "cannot move veth"
ip -n weft_a addr add 10.77.0.1/24 dev weft_va && ip -n weft_b addr add 10.77.0.2/24 dev weft_vb
for ns in weft_a weft_b; do ip -n $ns link set lo up; done
ip -n weft_a link set weft_va up && ip -n weft_b link set weft_vb up
shaping="netem 1 Gbit/s, 100 us"
if ! tc -n weft_a qdisc add dev weft_va root netem delay 100us rate 1gbit 2>/dev/null; then
  # No sch_netem in this kernel: a token bucket gives the rate, not the delay.
  tc -n weft_a qdisc add dev weft_va root tbf rate 1gbit burst 128kb latency 50ms 2>/dev/null || skip "no netem or tbf qdisc"
  tc -n weft_b qdisc add dev weft_vb root tbf rate 1gbit burst 128kb latency 50ms
  shaping="tbf 1 Gbit/s (no netem here: no added delay)"
else
  tc -n weft_b qdisc add dev weft_vb root netem delay 100us rate 1gbit
fi
echo "veth_sweep: shaping $shaping"
# Ranks in different namespaces of one host: MPI's shared-memory transport would bypass the veth, so
# TCP only, on the veth subnet; the launcher still reaches its processes over Unix sockets.
timeout 120 mpirun --allow-run-as-root --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 \
  --mca oob_tcp_if_include lo -np 2 ip netns exec weft_a "$exec_mpi" "$work/lowered/schedule.json" \
  --out "$work/veth.json" --warmup 1 --repeats 3 : -np 2 ip netns exec weft_b "$exec_mpi" "$work/lowered/schedule.json" \
  --out "$work/veth.json" --warmup 1 --repeats 3 >"$work/veth.txt" 2>&1 || skip "MPI across namespaces failed: $(tail -3 "$work/veth.txt")"
"$weft" calibrate "$work/veth.json" --out "$work/veth-profile.yaml" --holdout | tail -2
cleanup
