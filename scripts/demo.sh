#!/usr/bin/env bash
# The whole GitOps loop on the built-in lab, in a scratch clone of this repository:
# compile, lab up, plan, deploy, status, drift (clean), an out-of-band edit, drift (the report),
# the rollback command from the report, drift (clean), a port-change pull request (intent edit,
# compile, review diff, merge, deploy of the touched switches, drift clean), history, lab down,
# and the fabric view.
set -euo pipefail

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
fabricops="${FABRICOPS:-$repo/.venv/bin/fabricops}"
work=$(mktemp -d "${TMPDIR:-/tmp}/fabricops-demo-XXXXXX")
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$'; printf ' %q' "$@"; printf '\n'; "$@"; }

step "0. a scratch clone, so the demo's tags and backups stay out of your repository: $work"
git clone --quiet "$repo" "$work"
cd "$work"
git remote remove origin  # the fleet's state (lock, records, tags) stays in the scratch clone
git config user.name "fabricops demo"
git config user.email "demo@fabricops.invalid"
trap '"$fabricops" lab down >/dev/null 2>&1 || true' EXIT

step "1. compile intent/ -> generated/ (what a pull request changes and CI reviews)"
show "$fabricops" compile

step "2. start the lab: every switch of generated/ emulated on 127.0.0.1, at factory default"
show "$fabricops" lab up --empty

step "3. plan: what deploy would change, device by device, in waves (exit 3 = changes pending)"
show "$fabricops" plan --lab --summary || [ $? -eq 3 ]

step "4. deploy: backup, load, diff, commit-confirm, post-checks, confirm; canary first, then waves"
show "$fabricops" deploy --lab --plan plan.json --revert-in 120
git tag --list 'deploy/*'
show "$fabricops" status --devices rack03-leaf-a,rack03-leaf-b

step "5. drift: every running config against git, by meaning"
show "$fabricops" drift --lab --report-dir drift-reports/clean

step "6. an engineer edits rack03-leaf-a on the console, outside git"
show "$fabricops" lab tamper rack03-leaf-a --line "interface Ethernet2/1" --line "description moved-by-hand" --line "switchport access vlan 999"

step "7. drift finds it (exit 3) and writes the rollback report"
show "$fabricops" drift --lab --report-dir drift-reports/found || [ $? -eq 3 ]
fix=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(next(d["revert"] for d in r["devices"] if d["status"]=="drift"))' drift-reports/found/report.json)

step "8. the report's rollback command, run as printed"
echo "\$ $fix"
eval "${fix/fabricops/\"$fabricops\"}"

step "9. drift again: back in sync"
show "$fabricops" drift --lab --report-dir drift-reports/after

step "10. a port-change pull request: VLAN 300 on rack03-gpu001's ports (vlans.yaml), a port description (ports.yaml)"
base=$(git rev-parse --abbrev-ref HEAD)  # the branch the pull request merges into
git checkout --quiet -b port-change
python3 - <<'YAML'
from pathlib import Path
edits = {
    "vlans.yaml": ("vlans: {}", "vlans:\n  inference: {id: 300, network: compute, pool: 10.32.0.0/16, access: [{server: rack03-gpu001}]}"),
    "ports.yaml": ("ports: {}", "ports:\n  rack03-leaf-a:\n    Ethernet30/1: {description: burn-in bench}"),
}
for name, (old, new) in edits.items():
    path = Path("intent", name)
    path.write_text(path.read_text().replace(old, new, 1))
YAML
show git --no-pager diff --unified=0 intent/
show "$fabricops" compile
git add intent generated && git commit --quiet -m "VLAN 300 inference on rack03-gpu001; describe rack03-leaf-a Ethernet30/1"
step "11. the review diff CI posts on the pull request (exit 3 = changes), then merge"
show "$fabricops" diff --base "$base" || [ $? -eq 3 ]
git checkout --quiet "$base" && git merge --quiet --ff-only port-change

step "12. deploy the merged change to the two switches it touches, then drift: clean"
show "$fabricops" deploy --lab --devices rack03-leaf-a,rack03-leaf-b --revert-in 120
show "$fabricops" drift --lab --devices rack03-leaf-a,rack03-leaf-b --report-dir drift-reports/port-change

step "13. history: every deploy and rollback, its fleet version, result and who ran it"
show "$fabricops" history

step "14. lab down"
show "$fabricops" lab down
trap - EXIT

step "15. the fabric view: racks, servers, switches and their diffs against the last deploy, as a static site"
show "$fabricops" view

step "where things went"
echo "scratch repository:   $work"
echo "drift reports:        $work/drift-reports/{clean,found,after,port-change}/report.md"
echo "state of record:      branch fabricops-state ($fabricops status --root $work)"
echo "backups and records:  branch fabricops-state ($fabricops backups list --root $work)"
echo "deploy tags:          $(git tag --list 'deploy/*' | tr '\n' ' ')"
echo "the fabric view:      open file://$work/build/view/index.html in a browser (no server needed),"
echo "                      or: $fabricops view --root $work --serve   (http://127.0.0.1:<port>/)"
