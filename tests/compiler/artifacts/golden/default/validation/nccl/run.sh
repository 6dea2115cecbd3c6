#!/bin/bash
# Staged NCCL rollout (V2): run from this directory on a login node; stop at the first failed stage.
set -euo pipefail

echo "== stage 002"
mpirun --hostfile hosts-002.txt -np $(wc -l < hosts-002.txt) --map-by ppr:1:node \
    -x NCCL_SOCKET_IFNAME=bond0 -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_TC=104 \
    all_reduce_perf -b 128M -e 8G -f 2 -g 8 | tee result-002.txt
fabricops validate nccl result-002.txt --link-speed 100g

echo "== stage 010"
mpirun --hostfile hosts-010.txt -np $(wc -l < hosts-010.txt) --map-by ppr:1:node \
    -x NCCL_SOCKET_IFNAME=bond0 -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_TC=104 \
    all_reduce_perf -b 128M -e 8G -f 2 -g 8 | tee result-010.txt
fabricops validate nccl result-010.txt --link-speed 100g

echo "== stage 050"
mpirun --hostfile hosts-050.txt -np $(wc -l < hosts-050.txt) --map-by ppr:1:node \
    -x NCCL_SOCKET_IFNAME=bond0 -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_TC=104 \
    all_reduce_perf -b 128M -e 8G -f 2 -g 8 | tee result-050.txt
fabricops validate nccl result-050.txt --link-speed 100g

echo "== stage all"
mpirun --hostfile hosts-all.txt -np $(wc -l < hosts-all.txt) --map-by ppr:1:node \
    -x NCCL_SOCKET_IFNAME=bond0 -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_TC=104 \
    all_reduce_perf -b 128M -e 8G -f 2 -g 8 | tee result-all.txt
fabricops validate nccl result-all.txt --link-speed 100g
