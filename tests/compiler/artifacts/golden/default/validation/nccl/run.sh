#!/bin/bash
# Staged NCCL rollout (V2): run from this directory on a login node. Every step is named; the
# first that fails stops the rollout and is named, with its exit code, on stderr.
set -euo pipefail

# step NAME COMMAND...: run one step of the rollout
step() {
    echo "== $1"
    local code=0
    "${@:2}" || code=$?
    if [ "$code" -ne 0 ]; then
        echo "run.sh: step '$1' failed (exit $code); the later stages did not run" >&2
        exit "$code"
    fi
}

# all_reduce STAGE: all_reduce_perf with one rank per node of hosts-STAGE.txt, kept in result-STAGE.txt
all_reduce() {
    mpirun --hostfile "hosts-$1.txt" -np "$(wc -l < "hosts-$1.txt")" --map-by ppr:1:node \
        -x NCCL_SOCKET_IFNAME=enp65s0f0,enp193s0f0 -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_TC=106 \
        all_reduce_perf -b 128M -e 8G -f 2 -g 8 | tee "result-$1.txt"
}

step "stage 002: all_reduce_perf" all_reduce 002
step "stage 002: fabricops validate nccl" fabricops validate nccl result-002.txt --link-speed 100g
step "stage 010: all_reduce_perf" all_reduce 010
step "stage 010: fabricops validate nccl" fabricops validate nccl result-010.txt --link-speed 100g
step "stage 050: all_reduce_perf" all_reduce 050
step "stage 050: fabricops validate nccl" fabricops validate nccl result-050.txt --link-speed 100g
step "stage all: all_reduce_perf" all_reduce all
step "stage all: fabricops validate nccl" fabricops validate nccl result-all.txt --link-speed 100g
echo "== every stage passed"
