#!/bin/bash
# Verification for rack01-gpu008: run after setup-host.sh and the network files are applied.
# Prints the RDMA state for the record, then exits 1 when anything differs from the plan.
set -u
failed=0
fail() { echo "FAIL: $*"; failed=1; }

ibv_devinfo
rdma link show
ibstatus

[ "$(cat /sys/class/net/enp65s0f0/mtu)" = "9000" ] || fail "enp65s0f0 MTU is not 9000"
ip -brief address show dev enp65s0f0 | grep -qw "10.30.1.18/24" || fail "enp65s0f0 lacks 10.30.1.18/24"
[ "$(cat /sys/class/net/enp193s0f0/mtu)" = "9000" ] || fail "enp193s0f0 MTU is not 9000"
ip -brief address show dev enp193s0f0 | grep -qw "10.30.1.30/24" || fail "enp193s0f0 lacks 10.30.1.30/24"
[ "$(cat /sys/class/net/bond1/mtu)" = "9000" ] || fail "bond1 MTU is not 9000"
ip -brief address show dev bond1 | grep -qw "10.40.1.18/24" || fail "bond1 lacks 10.40.1.18/24"
[ "$(cat /sys/class/net/enp66s0f0/mtu)" = "9000" ] || fail "enp66s0f0 MTU is not 9000"
[ "$(cat /sys/class/net/enp66s0f1/mtu)" = "9000" ] || fail "enp66s0f1 MTU is not 9000"
[ "$(cat /sys/class/net/eno1/mtu)" = "1500" ] || fail "eno1 MTU is not 1500"
ip -brief address show dev eno1 | grep -qw "172.16.1.137/25" || fail "eno1 lacks 172.16.1.137/25"
rdma link show | grep -q "netdev enp65s0f0" || fail "enp65s0f0 has no RDMA link (RoCE off or mlx5_ib not loaded)"
mlnx_qos -i enp65s0f0 | grep -q "trust state: dscp" || fail "enp65s0f0 does not trust DSCP"
ethtool -k enp65s0f0 | grep -q "^large-receive-offload: off" || fail "enp65s0f0 large-receive-offload is on"
ethtool -k enp65s0f0 | grep -q "^generic-receive-offload: off" || fail "enp65s0f0 generic-receive-offload is on"
[ "$(cat /sys/class/net/enp65s0f0/device/numa_node)" = "0" ] || fail "enp65s0f0 is not on NUMA node 0, where the design puts its GPUs"
rdma link show | grep -q "netdev enp193s0f0" || fail "enp193s0f0 has no RDMA link (RoCE off or mlx5_ib not loaded)"
mlnx_qos -i enp193s0f0 | grep -q "trust state: dscp" || fail "enp193s0f0 does not trust DSCP"
ethtool -k enp193s0f0 | grep -q "^large-receive-offload: off" || fail "enp193s0f0 large-receive-offload is on"
ethtool -k enp193s0f0 | grep -q "^generic-receive-offload: off" || fail "enp193s0f0 generic-receive-offload is on"
[ "$(cat /sys/class/net/enp193s0f0/device/numa_node)" = "1" ] || fail "enp193s0f0 is not on NUMA node 1, where the design puts its GPUs"
ping -c 3 -W 1 -M do -s 8972 -I enp65s0f0 10.30.1.1 > /dev/null || fail "no 9000-byte path to 10.30.1.1 (compute gateway via enp65s0f0)"
ping -c 3 -W 1 -M do -s 8972 -I enp193s0f0 10.30.1.1 > /dev/null || fail "no 9000-byte path to 10.30.1.1 (compute gateway via enp193s0f0)"
ping -c 3 -W 1 -M do -s 8972 -I bond1 10.40.1.1 > /dev/null || fail "no 9000-byte path to 10.40.1.1 (storage gateway via bond1)"
ping -c 3 -W 1 -M do -s 1472 -I eno1 172.16.1.129 > /dev/null || fail "no 1500-byte path to 172.16.1.129 (management gateway via eno1)"
findmnt /mnt/datasets > /dev/null || fail "/mnt/datasets is not mounted"
findmnt /lustre/scratch > /dev/null || fail "/lustre/scratch is not mounted"

[ "${failed}" = 0 ] && echo "OK: rack01-gpu008 matches its plan"
exit "${failed}"
