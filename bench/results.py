"""``bench/RESULTS.md`` from one run's results: tables, targets and the headline ratios.

Every number printed comes from the report of ``bench/run.py``; nothing is typed in here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.incremental import foreign

STAGES = ("load", "resolve", "checks", "render", "write")


def _s(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


def _sizes(report: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return sorted((int(k), v) for k, v in report["sizes"].items())


def _avd_ok(entry: dict[str, Any]) -> bool:
    return "pyavd" in entry and "error" not in entry["pyavd"]


def ratios(entry: dict[str, Any]) -> dict[str, float | None]:
    """pyavd over ours: per device, in total, and per config line (higher = we are faster)."""
    if not _avd_ok(entry):
        return {"per_device": None, "total": None, "per_line": None}
    ours, avd = entry["compile"], entry["pyavd"]
    ours_total, avd_total = ours["seconds"]["total"], avd["timings"]["total"]
    return {
        "per_device": (avd_total / avd["devices"]) / (ours_total / ours["devices"]),
        "total": avd_total / ours_total,
        "per_line": (avd_total / avd["lines"]) / (ours_total / ours["lines"]),
    }


def targets(report: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(target, measured, met) for each stretch target; met is None when not measured."""
    sizes = dict(_sizes(report))
    out: list[tuple[str, str, bool | None]] = []
    one = sizes.get(1, {})
    proc = one.get("process_seconds")
    out.append(("`fabricops compile` of the example, whole process < 0.5 s", _s(proc) + " s", _met(proc, 0.5)))
    sixteen = sizes.get(16, {}).get("compile", {}).get("seconds", {}).get("total")
    out.append(("16x compile < 10 s", _s(sixteen) + " s", _met(sixteen, 10)))
    speedups = [(f, ratios(e)["per_device"]) for f, e in sorted(sizes.items()) if _avd_ok(e)]
    if speedups:
        text = ", ".join(f"{f}x: {_x(r)}" for f, r in speedups)
        out.append(
            (">= 50x faster than pyavd per device at every size", text, all((r or 0) >= 50 for _, r in speedups))
        )
    else:
        out.append((">= 50x faster than pyavd per device at every size", "pyavd not measured", None))
    for kind, what in (("configs", "configs only"), ("all", "every file")):
        floors = [(f, e["compile"]["seconds"]["total"] / e["floor"][kind]["seconds"]) for f, e in sorted(sizes.items())]
        text = ", ".join(f"{f}x: {_x(r)}" for f, r in floors)
        out.append((f"within 5x of the floor ({what})", text, all(r <= 5 for _, r in floors)))
    if 16 in sizes and 64 in sizes:
        big, small = sizes[64]["compile"]["seconds"], sizes[16]["compile"]["seconds"]
        growth, cpu = big["total"] / small["total"], big["cpu"] / small["cpu"]
        out.append(("64x/16x compile time <= 4.5", f"{growth:.2f} (CPU time {cpu:.2f})", max(growth, cpu) <= 4.5))
    drift = report.get("fleet", {}).get(16, report.get("fleet", {}).get("16", {})).get("steps", {}).get("drift")
    drift_ok = drift is not None and drift["rc"] in (0, 3)
    out.append(
        (
            "drift over the 16x lab < 60 s",
            f"{_s(drift['seconds'], 1)} s (exit {drift['rc']})" if drift else "not measured",
            _met(drift["seconds"], 60) if drift_ok else None,
        )
    )
    inc = report.get("incremental")
    if inc:
        inc["foreign"] = foreign(inc["touched"], inc["server"], set(inc["switches"]))  # derived, not timed
        local = not inc["foreign"]
        text = f"{_s(inc['process_seconds'])} s, {len(inc['touched'])} files, " + (
            "only its own and its switches' per-device files" if local else f"foreign: {', '.join(inc['foreign'])}"
        )
        out.append(("one-row incremental recompile < 0.5 s, local", text, inc["process_seconds"] < 0.5 and local))
    return out


def _met(value: float | None, limit: float) -> bool | None:
    return None if value is None else value < limit


def headline(report: dict[str, Any]) -> str:
    """One paragraph of headline ratios, for the README."""
    parts = []
    for factor, entry in _sizes(report):
        r = ratios(entry)
        if r["per_device"] is not None:
            parts.append(f"{factor}x: {r['per_device']:.0f}x per device ({r['total']:.0f}x in total)")
    sizes = dict(_sizes(report))
    one = sizes.get(1, {})
    lines = []
    if parts:
        lines.append("Against pyavd on the same machine in the same run: " + "; ".join(parts) + ".")
    if "process_seconds" in one:
        lines.append(f"`fabricops compile` of the example takes {one['process_seconds']:.2f} s as a whole process.")
    big = max(sizes) if sizes else None
    if big:
        c = sizes[big]["compile"]
        lines.append(
            f"At {big}x ({c['devices']} switches, {c['servers']} servers, {c['lines']:,} config lines) "
            f"a compile takes {c['seconds']['total']:.1f} s."
        )
    return " ".join(lines)


def markdown(report: dict[str, Any]) -> str:
    """The whole RESULTS.md."""
    m = report["machine"]
    out = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`bench/run.py`); every figure below comes from that one run.",
        "",
        *(
            [f"Sections measured when the run was resumed (`--resume`): {', '.join(report['resumed'])}.", ""]
            if report.get("resumed")
            else []
        ),
        "## Machine",
        "",
        "| | |",
        "| --- | --- |",
        f"| CPU | {m['cpu']} |",
        f"| cores | {m['cores']} |",
        f"| memory | {m['memory_gib']} GiB |",
        f"| Python | {m['python']} ({m['platform']}) |",
        f"| date | {m['date']} |",
        f"| commit measured | {m.get('commit', 'unknown')} |",
        f"| load average at start | {', '.join(str(x) for x in m['load_at_start'])} |",
        f"| pyavd | {report['pyavd'].get('version') or 'not installed'} |",
        f"| elapsed, start to last section | {report.get('seconds', 0):.0f} s |",
        "",
        "Times are medians of several runs (16x: one less; 64x and pyavd above 1x: one run) on a machine that may be",
        "shared: compare ratios taken from the same run rather than absolute seconds across runs.",
        "",
        "## Headline",
        "",
        headline(report),
        "",
    ]
    out += _targets_table(report)
    out += _misses(report)
    out += _compile_table(report)
    out += _floor_table(report)
    out += _avd_table(report)
    out += _incremental(report)
    out += _fleet_table(report)
    out += _profile(report)
    return "\n".join(out).rstrip() + "\n"


def _targets_table(report: dict[str, Any]) -> list[str]:
    out = ["## Targets", "", "| target | measured | met |", "| --- | --- | --- |"]
    for name, measured, met in targets(report):
        out.append(f"| {name} | {measured} | {'yes' if met else 'no' if met is False else '-'} |")
    return [*out, ""]


def _misses(report: dict[str, Any]) -> list[str]:
    """Where the time goes for each target missed, in figures from this run."""
    sizes = dict(_sizes(report))
    notes: list[str] = []
    one = sizes.get(1)
    if one and one.get("process_seconds", 0) >= 0.5:
        c = one["compile"]["seconds"]
        text = (
            f"**Whole process, {one['process_seconds']:.2f} s.** The compile itself takes {c['total']:.2f} s in-process"
        )
        text += f" (write {c['write']:.2f} s, render {c['render']:.2f} s)"
        startup = one.get("startup")
        if startup:
            parts = "; ".join(f"{name} {seconds:.2f} s" for name, seconds in startup.items())
            text += f"; before it, as whole processes: {parts}. Most of the import time is building the"
            text += " pydantic intent models (`compiler.intent`)"
        notes.append(text + ".")
    for factor in (16, 64):
        entry = sizes.get(factor)
        if entry is None or (factor == 16 and entry["compile"]["seconds"]["total"] < 10):
            continue
        c = entry["compile"]
        sec = c["seconds"]
        ranked = sorted(STAGES, key=lambda k: sec[k], reverse=True)
        shares = ", ".join(f"{k} {sec[k]:.1f} s" for k in ranked)
        notes.append(
            f"**{factor}x, {sec['total']:.1f} s ({sec['cpu']:.1f} s CPU).** {shares}. It writes {c['files']:,} files "
            f"({c['files'] / c['devices']:.0f} per switch: config, structured data, monitoring rules, and per "
            f"server its NIC files and scripts); the bare floor writing the same files takes "
            f"{entry['floor']['all']['seconds']:.1f} s on this disk. The write stage is `compiler/output.py` "
            "at the commit measured (see the profile below for its file opens and folder creations)."
        )
    speedups = [(f, ratios(e)) for f, e in sorted(sizes.items()) if _avd_ok(e)]
    if speedups and any((r["per_device"] or 0) < 50 for _, r in speedups):
        parts = "; ".join(
            f"{f}x: {r['per_device']:.0f}x per switch, {r['per_line']:.0f}x per config line" for f, r in speedups
        )
        notes.append(
            f"**pyavd.** {parts}. pyavd writes one config per switch; ours also writes the structured config,"
            " monitoring rules, inventory and every server's files, so most of our time per switch is not"
            " spent on its config." + _per_switch_trend(sizes[speedups[0][0]], sizes[speedups[-1][0]])
        )
    inc = report.get("incremental")
    if inc and inc["process_seconds"] >= 0.5:
        notes.append(
            f"**Incremental, {inc['process_seconds']:.2f} s.** A recompile is a full compile of the example"
            " (nothing is cached between runs) plus the process start above; the files it touches are local"
            f" ({len(inc['touched'])}: the server's own, its {len(inc['switches'])} switches',"
            " and the fleet-wide tables)."
        )
    if not notes:
        return []
    return ["### Where the time goes, for the targets missed", "", *[f"* {n}" for n in notes], ""]


def _per_switch_trend(small: dict[str, Any], large: dict[str, Any]) -> str:
    """How the time per switch moves from the smallest to the largest size both compiled."""
    if small is large:
        return ""
    avd = [e["pyavd"]["timings"]["total"] / e["pyavd"]["devices"] for e in (small, large)]
    ours = [e["compile"]["per_device"] for e in (small, large)]
    return (
        f" From {small['factor']}x to {large['factor']}x pyavd's time per switch goes from {1000 * avd[0]:.0f}"
        f" to {1000 * avd[1]:.0f} ms, ours from {1000 * ours[0]:.1f} to {1000 * ours[1]:.1f} ms."
    )


def _compile_table(report: dict[str, Any]) -> list[str]:
    out = [
        "## Compile",
        "",
        "Each size in a fresh process (peak RSS is that size's own); seconds are medians of the runs;",
        "total = load + resolve + checks + render + write, as `compile_intent` + `write_generated` run them;",
        "CPU s is the process's CPU time over the same total: where wall is well above it, the process was",
        "waiting (for the other work on a busy machine, or for the disk).",
        "",
        "| size | switches | servers | config lines | files | "
        + " | ".join(STAGES)
        + " | total s | CPU s | ms/switch | peak RSS MiB | runs |",
        "| --- " * (11 + len(STAGES) - 1) + "|",
    ]
    previous = None
    growth = []
    for factor, entry in _sizes(report):
        c = entry["compile"]
        s = c["seconds"]
        out.append(
            f"| {factor}x | {c['devices']} | {c['servers']} | {c['lines']:,} | {c['files']:,} | "
            + " | ".join(_s(s[k]) for k in STAGES)
            + f" | {_s(s['total'])} | {_s(s['cpu'])} | {1000 * c['per_device']:.2f}"
            + f" | {c['peak_rss_mib']:.0f} | {c['runs']} |"
        )
        if previous:
            growth.append(
                f"{factor}x/{previous[0]}x: {s['total'] / previous[1]:.2f} (CPU {s['cpu'] / previous[2]:.2f})"
            )
        previous = (factor, s["total"], s["cpu"])
    one = dict(_sizes(report)).get(1, {})
    if "process_seconds" in one:
        out += [
            "",
            f"`python -m fabricops compile --root DIR` of the example, whole process: {one['process_seconds']:.3f} s.",
        ]
    if growth:
        out += ["", "Total time growth between sizes (each step is 4x the racks): " + ", ".join(growth) + "."]
    first = [
        f"{f}x: total {e['compile']['first']['total']:.2f} s, write {e['compile']['first']['write']:.2f} s"
        for f, e in _sizes(report)
        if "first" in e["compile"]
    ]
    if first:
        out += ["", "The first run of each size, into an empty `generated/` (the medians include later runs that find"]
        out += ["the same tree in place): " + "; ".join(first) + "."]
    shares = []
    for factor, entry in _sizes(report):
        c = entry["compile"]
        total = c["seconds"]["total"]
        stages = sorted(STAGES, key=lambda k: c["seconds"][k], reverse=True)
        top = ", ".join(f"{k} {100 * c['seconds'][k] / total:.0f}%" for k in stages[:3])
        per_file = 1000 * c["seconds"]["write"] / c["files"]
        shares.append(f"{factor}x: {top} ({c['files'] / c['devices']:.0f} files per switch, {per_file:.2f} ms each)")
    if shares:
        out += ["", "Largest stages, share of the total: " + "; ".join(shares) + "."]
    return [*out, ""]


def _floor_table(report: dict[str, Any]) -> list[str]:
    out = [
        "## Floor",
        "",
        "A bare Jinja2 render + write of the same lines from ready dicts (each file cut into sections",
        "beforehand, one template that only loops and prints): the least a Jinja2 compiler producing",
        "that text can spend. *configs*: the switch configs only; *all*: every file ours writes",
        "(structured configs, inventory, monitoring, server files, docs too), in the same layout.",
        "",
        "| size | config lines | floor configs s | all files | all lines | floor all s | ours render+write s "
        "| ours total s | total / floor configs | total / floor all |",
        "| --- " * 10 + "|",
    ]
    for factor, entry in _sizes(report):
        fc, fa, s = entry["floor"]["configs"], entry["floor"]["all"], entry["compile"]["seconds"]
        out.append(
            f"| {factor}x | {fc['lines']:,} | {_s(fc['seconds'])} | {fa['files']:,} | {fa['lines']:,} | "
            f"{_s(fa['seconds'])} | {_s(s['render'] + s['write'])} | {_s(s['total'])} | "
            f"{_x(s['total'] / fc['seconds'])} | {_x(s['total'] / fa['seconds'])} |"
        )
    return [*out, ""]


def _avd_table(report: dict[str, Any]) -> list[str]:
    out = [
        "## Side by side with pyavd",
        "",
        "The same compute and storage fabrics (spines, MLAG leaf pairs, uplink ports, pools, server VLAN",
        "SVIs with the virtual gateway, every server's NICs on both leaves, eBGP underlay, jumbo MTU on",
        "the uplinks) as AVD `eos_designs` inputs (`bench/avd_inputs.py`), compiled by `bench/avd_run.py`",
        "with `validate_inputs` (once per node type), `get_avd_facts`, `get_device_structured_config` and",
        "`get_device_config` for every device, right after ours at the same size. pyavd has no",
        "counterpart for the management network (rack switches, core), so it compiles fewer switches:",
        "compare per switch.",
        "",
        "| size | pyavd switches | configs | config lines | validate | facts | structured | config | "
        "pyavd total s | pyavd ms/switch | pyavd peak RSS MiB | ours ms/switch | per switch | total | per line |",
        "| --- " * 15 + "|",
    ]
    for factor, entry in _sizes(report):
        if "pyavd" not in entry:
            continue
        a = entry["pyavd"]
        if "error" in a:
            out.append(f"| {factor}x | pyavd failed: {' '.join(a['error'])} |" + " |" * 13)
            continue
        t, r = a["timings"], ratios(entry)
        out.append(
            f"| {factor}x | {a['devices']} | {a['configs']} | {a['lines']:,} | {_s(t['validate'], 2)} | "
            f"{_s(t['facts'], 2)} | {_s(t['structured'], 2)} | {_s(t['config'], 2)} | {_s(t['total'], 2)} | "
            f"{1000 * t['total'] / a['devices']:.0f} | {a['peak_rss_mib']:.0f} | "
            f"{1000 * entry['compile']['per_device']:.2f} | {_x(r['per_device'])} | {_x(r['total'])} | "
            f"{_x(r['per_line'])} |"
        )
    out += ["", "The last three columns: pyavd's time over ours (per switch, in total, per config line)."]
    resumed = [f"{f}x" for f, e in _sizes(report) if e.get("pyavd", {}).get("resumed")]
    if resumed:
        out += [
            "",
            f"pyavd at {', '.join(resumed)} ran when the run was resumed (`--resume`), after the other sections,",
            "not right after ours: the machine's load may differ between the two measurements.",
        ]
    if not report["pyavd"].get("version"):
        out += ["", f"pyavd could not be imported by `{report['pyavd']['python']}`: side by side not measured."]
    return [*out, ""]


def _incremental(report: dict[str, Any]) -> list[str]:
    inc = report.get("incremental")
    if not inc:
        return []
    stages = ", ".join(f"{k} {v:.3f}" for k, v in inc["stages"].items())
    out = [
        "## Incremental recompile",
        "",
        f"One row (`{inc['server']}`) added to the example's `servers.csv`, then `fabricops compile` as a",
        f"whole process: **{inc['process_seconds']:.3f} s** (median of {inc['runs']}); the same compile",
        f"in-process, per stage: {stages} s.",
        "",
        f"Files touched: {len(inc['touched'])} ({len(inc['added'])} added, {len(inc['changed'])} changed, "
        f"{len(inc['removed'])} removed). The server is cabled to {', '.join(inc['switches'])}.",
        "",
        "| file | |",
        "| --- | --- |",
    ]
    for path in inc["added"]:
        out.append(f"| `{path}` | added |")
    for path in inc["changed"]:
        out.append(f"| `{path}` | changed |")
    for path in inc["removed"]:
        out.append(f"| `{path}` | removed |")
    if inc["foreign"]:
        out += ["", "Per-device files of other switches touched: " + ", ".join(inc["foreign"])]
    return [*out, ""]


def _fleet_table(report: dict[str, Any]) -> list[str]:
    fleet = report.get("fleet") or {}
    out = [
        "## Fleet operations on the lab",
        "",
        "The compiled root as a git repository, the lab started at factory default (`fabricops lab up",
        "--empty`), then each verb as its own process with `--lab`: `plan` (every device differs; exit 3",
        "means changes pending), `deploy` of every device, one device changed (a line of `extra_config`,",
        "recompiled and committed) and `deploy` again, then `drift`. Peak RSS is the CLI process's.",
        "",
        "| size | step | switches | workers | seconds | switches/s | peak RSS MiB | exit |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for factor, result in sorted((int(k), v) for k, v in fleet.items()):
        if "steps" not in result:
            out.append(f"| {factor}x | not run: {result.get('error', '')} | | | | | | |")
            continue
        for step, m in result["steps"].items():
            name = f"{step}: {m['changed']}" if m.get("changed") else step
            out.append(
                f"| {factor}x | {name} | {m['devices']} | {result['workers']} | {_s(m['seconds'], 2)} | "
                f"{m['devices_per_s']:.1f} | {m['peak_rss_mib']:.0f} | {m['rc']} |"
            )
        if result.get("error"):
            out.append(f"| {factor}x | stopped: {result['error']} | | | | | | |")
    return [*out, ""]


def _profile(report: dict[str, Any]) -> list[str]:
    prof = report.get("profile")
    if not prof:
        return []
    timings = ", ".join(f"{k} {v:.2f}" for k, v in prof["timings"].items())
    out = [
        "## Where the time goes",
        "",
        f"cProfile of one compile + write at {Path(prof['intent']).parent.name.removeprefix('x')}x"
        f" (stages under the profiler: {timings} s;",
        "the profiler inflates call-heavy code). Functions by own time:",
        "",
        "| function | calls | own s | cumulative s |",
        "| --- | --- | --- | --- |",
    ]
    for row in prof["top"]:
        out.append(f"| `{row['function']}` | {row['calls']:,} | {row['own']:.2f} | {row['cumulative']:.2f} |")
    return [*out, ""]
