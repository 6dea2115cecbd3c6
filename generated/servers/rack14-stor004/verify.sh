#!/bin/bash
# Verification for rack14-stor004: run after setup-host.sh and the network files are applied.
# Prints the RDMA state for the record, then exits 1 when anything differs from the plan.
set -u
failed=0
fail() { echo "FAIL: $*"; failed=1; }

ibv_devinfo
rdma link show
ibstatus

[ "$(cat /sys/class/net/bond1/mtu)" = "9000" ] || fail "bond1 MTU is not 9000"
ip -brief address show dev bond1 | grep -qw "10.40.4.25/24" || fail "bond1 lacks 10.40.4.25/24"
[ "$(cat /sys/class/net/enp65s0f0/mtu)" = "9000" ] || fail "enp65s0f0 MTU is not 9000"
[ "$(cat /sys/class/net/enp65s0f1/mtu)" = "9000" ] || fail "enp65s0f1 MTU is not 9000"
[ "$(cat /sys/class/net/eno1/mtu)" = "1500" ] || fail "eno1 MTU is not 1500"
ip -brief address show dev eno1 | grep -qw "172.16.14.133/25" || fail "eno1 lacks 172.16.14.133/25"
ping -c 3 -W 1 -M do -s 8972 -I bond1 10.40.4.1 > /dev/null || fail "no 9000-byte path to 10.40.4.1 (storage gateway via bond1)"
ping -c 3 -W 1 -M do -s 1472 -I eno1 172.16.14.129 > /dev/null || fail "no 1500-byte path to 172.16.14.129 (management gateway via eno1)"
findmnt /mnt/datasets > /dev/null || fail "/mnt/datasets is not mounted"

[ "${failed}" = 0 ] && echo "OK: rack14-stor004 matches its plan"
exit "${failed}"
