"""``bench/RESULTS.md`` from one run's results: tables, targets and the headline ratios.

Every number printed comes from the report of ``bench/run.py``; nothing is typed in here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.checks import INPUTS
from bench.checks import SIZES as CHECK_SIZES
from bench.checks import growth as checks_growth
from bench.checks import total as checks_total
from bench.incremental import foreign

STAGES = ("load", "resolve", "checks", "render", "write")
HELP = "fabricops --help"
COMPILE_CURRENT = "fabricops compile --full (generated/ current)"
COMPILE_UNCHANGED = "fabricops compile (nothing changed)"
FLEET_TARGET = 200.0
INCREMENTAL_AT = 16
"""The fleet size at which a one-row recompile is held to 5x faster than a full compile."""


def _s(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


def _rounds(inc: dict[str, Any]) -> str:
    """The median of the rounds' ratios, where the run took turns (older reports did not).

    Example:
        >>> _rounds({"round_speedup": 4.04}), _rounds({})
        ('; 4.0x the median of the rounds', '')
    """
    found = inc.get("round_speedup")
    return f"; {_x(found)} the median of the rounds" if found else ""


def _each_round(inc: dict[str, Any]) -> str:
    """Each round's ratio, full over incremental (one of each, taking turns), or '-'.

    Example:
        >>> _each_round({"round_speedups": [4.1, 3.9]}), _each_round({})
        ('4.1, 3.9x', '-')
    """
    found = inc.get("round_speedups")
    return f"{', '.join(f'{r:.1f}' for r in found)}x" if found else "-"


def _sizes(report: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return sorted((int(k), v) for k, v in report["sizes"].items())


def _avd_ok(entry: dict[str, Any]) -> bool:
    side = entry.get("sidebyside", {})
    return "pyavd" in side and "error" not in side["pyavd"]


def _fleet_step(report: dict[str, Any], factor: int, step: str) -> dict[str, Any] | None:
    found = report.get("fleet", {}).get(factor, {})
    result: dict[str, Any] | None = found.get("steps", {}).get(step)
    return result


def _met(value: float | None, limit: float, below: bool = True) -> bool | None:
    if value is None:
        return None
    return value < limit if below else value >= limit


def targets(report: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(target, measured, met) for each target of the run; met is None when not measured."""
    sizes = dict(_sizes(report))
    out: list[tuple[str, str, bool | None]] = []
    start = report.get("startup", {}).get("seconds", {})
    for name, limit in ((HELP, 0.15), (COMPILE_UNCHANGED, 0.5), (COMPILE_CURRENT, 0.5)):
        value = start.get(name, {}).get("median")
        out.append((f"`{name}`, whole process < {limit} s", f"{_s(value)} s", _met(value, limit)))
    one = sizes.get(1)
    ratio = one["sidebyside"]["ratio_cold"]["per_switch"] if one and _avd_ok(one) else None
    cpu = _cpu_ratio(one["sidebyside"]) if one and _avd_ok(one) else None
    out.append(
        (
            ">= 50x pyavd per switch at 1x, both whole processes, cold",
            f"{_x(ratio)} wall, {_x(cpu)} CPU",
            _met(ratio, 50, False),
        )
    )
    floors = [
        (f, e["sidebyside"]["ours"]["cold"]["seconds"] / e["floor"]["configs"]["seconds"]) for f, e in sizes.items()
    ]
    text = ", ".join(f"{f}x: {_x(r)}" for f, r in floors)
    out.append(
        ("within 5x of the bare Jinja2 floor (configs)", text, all(r <= 5 for _, r in floors) if floors else None)
    )
    scaled = report.get("scaling")
    if scaled:
        g, c = scaled["growth"], scaled["checks_growth"]
        low, high = sorted(int(k) for k in scaled["sizes"])
        out.append(
            (
                f"{high}x/{low}x: compile and checks grow <= 4.5x for {g['switches']:.2f}x the switches (linear)",
                f"`compile --full` {g['seconds']:.2f}x wall, {g['cpu']:.2f}x CPU; `run_checks` {c['all_rules']:.2f}x"
                f" (each rule alone, from cold: {c['sum']:.2f}x)",
                max(g["seconds"], g["cpu"], c["all_rules"]) <= 4.5,
            )
        )
    elif 16 in sizes and 64 in sizes:
        big, small = sizes[64]["inprocess"]["seconds"], sizes[16]["inprocess"]["seconds"]
        growth, cpu = big["total"] / small["total"], big["cpu"] / small["cpu"]
        out.append(("64x/16x compile time <= 4.5 (linear)", f"{growth:.2f} (CPU {cpu:.2f})", max(growth, cpu) <= 4.5))
    for step in ("drift (in sync)", "plan (in sync)"):
        found = _fleet_step(report, 16, step)
        rate = found["switches_per_s"] if found and found["rc"] in (0, 3) else None
        out.append(
            (
                f"{step.split()[0]} over the 16x lab >= {FLEET_TARGET:.0f} switches/s",
                _rate(found),
                _met(rate, FLEET_TARGET, False),
            )
        )
    for factor, inc in sorted((int(k), v) for k, v in (report.get("incremental") or {}).items()):
        inc["foreign"] = foreign(inc["touched"], inc["server"], set(inc["switches"]))  # derived, not timed
        text = (
            f"{_s(inc['process_seconds'], 2)} s vs {_s(inc['full_seconds'], 2)} s full: {_x(inc['speedup'])}"
            f" (CPU {_x(inc.get('cpu_speedup'))}{_rounds(inc)});"
            f" {inc['rendered']} of {inc['switches_total']} switches rendered,"
            f" {'byte-identical' if inc['identical'] else 'DIFFERS from a full compile'}"
        )
        right = inc["identical"] and not inc["foreign"]
        if factor >= INCREMENTAL_AT:
            met: bool | None = inc["speedup"] >= 5 and right
            out.append((f"one-row recompile at {factor}x >= 5x faster than a full one, byte-identical", text, met))
        else:  # measured for scale: a full compile this small is mostly the fixed cost both pay
            out.append(
                (
                    f"one-row recompile at {factor}x, byte-identical (the 5x target is at 16x)",
                    text,
                    None if right else False,
                )
            )
    found = report.get("checks")
    if found and len(found["sizes"]) >= 2:
        (small, a), (large, b) = sorted((int(k), v) for k, v in found["sizes"].items())[:2]
        g = checks_growth(a, b)
        worst = max(g["per_input"].items(), key=lambda kv: kv[1] if b["rules"][kv[0]] > 0.005 else 0)
        out.append(
            (
                f"checks {large}x/{small}x growth <= 4.5 for {g['devices']:.2f}x the devices",
                f"shared look-ups and every rule {g['sum']:.2f}x ({1000 * checks_total(a):.0f} ->"
                f" {1000 * checks_total(b):.0f} ms); steepest rule over 5 ms against its own input:"
                f" {worst[0]} {g['rules'][worst[0]]:.2f}x for {g[INPUTS.get(worst[0], 'devices')]:.2f}x the"
                f" {INPUTS.get(worst[0], 'devices')}",
                g["sum"] <= 4.5,
            )
        )
    return out


def _rate(step: dict[str, Any] | None) -> str:
    if step is None:
        return "not measured"
    return f"{step['switches_per_s']:.0f} switches/s ({step['seconds']:.1f} s, exit {step['rc']})"


def headline(report: dict[str, Any]) -> str:
    """One paragraph of headline figures, for the README."""
    parts = []
    for factor, entry in _sizes(report):
        if _avd_ok(entry):
            r = entry["sidebyside"]["ratio_cold"]
            parts.append(f"{factor}x: {r['per_switch']:.1f}x per switch ({r['per_line']:.1f}x per configured line)")
    lines = []
    if parts:
        lines.append("Against pyavd, both as whole processes started cold, same run: " + "; ".join(parts) + ".")
    start = report.get("startup", {}).get("seconds", {})
    if COMPILE_CURRENT in start:
        unchanged = start.get(COMPILE_UNCHANGED, {}).get("median")
        lines.append(
            f"`fabricops compile --full` of the example takes {start[COMPILE_CURRENT]['median']:.2f} s as a whole"
            f" process, `fabricops compile` with nothing changed {_s(unchanged, 2)} s (`--help`"
            f" {start[HELP]['median']:.2f} s; load average {report['startup'].get('load_at_start', '-')})."
        )
    drift = _fleet_step(report, 16, "drift (in sync)")
    if drift:
        lines.append(
            f"Drift over the 16x lab: {drift['switches_per_s']:.0f} switches/s, {100 * drift['lab_share']:.0f}% of"
            " the CPU time the lab's."
        )
    return " ".join(lines)


def markdown(report: dict[str, Any]) -> str:
    """The whole RESULTS.md."""
    m = report["machine"]
    out = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`bench/run.py`); every figure below comes from that one run"
        + (
            " in its quick mode (`make bench BENCH_ARGS=--quick`: sizes 1x and 4x side by side, 3 runs each;"
            " checks at 4x and 16x, the incremental recompile at 1x and 16x; the lab at the sizes of its table)."
            if report.get("mode") == "quick"
            else "."
        ),
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
        "Figures are medians of whole-process runs (counts in each table) on a 2-core machine that other",
        "work may share: each section names the 1-minute load average it ran under. Compare ratios taken",
        "from the same run rather than absolute seconds across runs.",
        "",
        "## Headline",
        "",
        headline(report),
        "",
    ]
    out += _targets_table(report)
    out += _misses(report)
    out += _startup(report)
    out += _sidebyside(report)
    out += _floor_table(report)
    out += _inprocess_table(report)
    out += _fleet_table(report)
    out += _incremental(report)
    out += _checks(report)
    out += _scaling(report)
    out += _profile(report)
    return "\n".join(out).rstrip() + "\n"


def _targets_table(report: dict[str, Any]) -> list[str]:
    out = ["## Targets", "", "| target | measured | met |", "| --- | --- | --- |"]
    for name, measured, met in targets(report):
        out.append(f"| {name} | {measured} | {'yes' if met else 'no' if met is False else '-'} |")
    return [*out, ""]


def _misses(report: dict[str, Any]) -> list[str]:
    """Where the time goes for each target missed, in figures from this run."""
    notes: list[str] = []
    start = report.get("startup")
    if start and start["seconds"].get(COMPILE_CURRENT, {}).get("median", 0) >= 0.5:
        s = start["seconds"]
        stages = ", ".join(f"{k} {v:.2f}" for k, v in start["stages"].items())
        imports = start["imports"]["fabricops compile --full"]
        heavy = ", ".join(f"{name} {seconds:.2f}" for name, seconds in imports["by_package"][:5])
        notes.append(
            f"**Example compile, {s[COMPILE_CURRENT]['median']:.2f} s.** The interpreter alone takes"
            f" {s['python -c pass']['median']:.2f} s; the imports {imports['total']:.2f} s (by package, own time:"
            f" {heavy} s); the compile's stages {stages} s."
        )
    for factor, entry in _sizes(report):
        if not _avd_ok(entry):
            continue
        side = entry["sidebyside"]
        r, mine, theirs = side["ratio_cold"], side["ours"], side["pyavd"]
        if r["per_switch"] >= 50:
            continue
        per_ours = 1000 * mine["cold"]["seconds"] / mine["switches"]
        per_theirs = 1000 * theirs["seconds"] / theirs["switches"]
        notes.append(
            f"**pyavd at {factor}x, {r['per_switch']:.1f}x per switch.** pyavd {per_theirs:.0f} ms per switch"
            f" ({theirs['switches']} switches, {theirs['lines']:,} configured lines, one file each); ours"
            f" {per_ours:.1f} ms per switch ({mine['switches']} switches, {mine['lines']:,} configured lines,"
            f" {mine['files']:,} files: configs, structured configs, monitoring, inventory and every server's"
            f" files). Ours with generated/ already in place: {mine['current']['seconds']:.2f} s"
            f" ({r['per_switch'] * mine['cold']['seconds'] / mine['current']['seconds']:.1f}x per switch)."
        )
    for step in ("drift (in sync)", "plan (in sync)"):
        found = _fleet_step(report, 16, step)
        if found is None or found["switches_per_s"] >= FLEET_TARGET:
            continue
        notes.append(
            f"**{step.split()[0].capitalize()} at 16x, {found['switches_per_s']:.0f} switches/s.** Per run"
            f" {found['seconds']:.1f} s wall: the CLI process {found['cpu']:.1f} s CPU, the lab"
            f" {found['lab_cpu']:.1f} s CPU ({100 * found['lab_share']:.0f}% of both); two cores give at most"
            f" {2 * found['seconds']:.1f} CPU seconds in that time (load average {found['load']})."
        )
    for factor, inc in sorted((int(k), v) for k, v in (report.get("incremental") or {}).items()):
        if inc["speedup"] >= 5 or factor < INCREMENTAL_AT:
            continue
        notes.append(
            f"**One-row recompile at {factor}x, {inc['speedup']:.1f}x a full one.** It rebuilds"
            f" {inc['rendered']} of {inc['switches_total']} switches and {inc.get('servers_rendered', '?')} server"
            f" directory and writes {len(inc['touched'])} files (every other switch's and server's files are"
            " kept unread; the expected counters, cable list, assets, IP plan and link tests joined from"
            " sections, the kept ones cut from the files in place; a kept switch's structured config is"
            " never built by the render; the checks run in a forked process beside the render). What"
            " every compile still pays whatever changed: the interpreter and the imports, the record and"
            " the stamps of every file of `generated/`, the intent loaded and its facts built as a whole"
            " (addresses, cabling and budgets span the fleet), every unit's inputs keyed (a pickle's"
            " sha256 per unit, about 6,000 at 16x), and the checks over every switch's config (beside the"
            " render, so in the wall time only where they outlast it). A full compile got faster with"
            " the same work (checks beside the render, tables in sections, configs built once), so the"
            " ratio moves less than the one-row time."
            + (
                " Seconds per stage, median: "
                + ", ".join(f"{name} {seconds:.2f}" for name, seconds in inc["stages"].items())
                + " (checks: the wait for them after the render; outside: start, imports, the record, exit)."
                if inc.get("stages")
                else ""
            )
        )
    found = report.get("checks")
    if found and len(found["sizes"]) >= 2:
        (small, a), (large, b) = sorted((int(k), v) for k, v in found["sizes"].items())[:2]
        g = checks_growth(a, b)
        if g["sum"] > 4.5:
            steep = [
                f"{rid} {g['rules'][rid]:.1f}x"
                for rid, t in sorted(b["rules"].items(), key=lambda kv: -kv[1])
                if t > 0.02 and g["rules"][rid] > 4.5
            ]
            notes.append(
                f"**Checks {large}x/{small}x, {g['sum']:.2f}x for {g['devices']:.2f}x the switches.** Rules over"
                f" 20 ms growing faster than 4.5x: {', '.join(steep) or 'none'}. Every rule is a linear pass"
                " (or sorts: n log n) over what it reads; growth beyond the fleet's at this load is cache"
                " and scheduling (the larger fleet's data no longer fits the caches; another process's work"
                " lands on whichever rule runs)."
            )
    if not notes:
        return []
    return ["### Where the time goes, for the targets missed", "", *[f"* {n}" for n in notes], ""]


def _startup(report: dict[str, Any]) -> list[str]:
    start = report.get("startup")
    if not start:
        return []
    out = [
        "## Start",
        "",
        f"Each command as a new process, in a copy of the example (load average {start.get('load_at_start', '-')}):",
        "",
        "| command | median s | min s | runs |",
        "| --- | --- | --- | --- |",
    ]
    for name, s in start["seconds"].items():
        out.append(f"| `{name}` | {_s(s['median'])} | {_s(s['min'])} | {s['runs']} |")
    for command, found in start["imports"].items():
        heavy = ", ".join(f"{name} {1000 * seconds:.0f}" for name, seconds in found["by_package"][:8])
        out += [
            "",
            f"`{command}` imports, `-X importtime`: {found['total']:.3f} s in all; by package (own ms): {heavy}.",
        ]
    if start.get("stages"):
        stages = ", ".join(f"{k} {v:.3f}" for k, v in start["stages"].items())
        out += ["", f"The compile's own stages in that process (`--timings`): {stages} s."]
    return [*out, ""]


def _sidebyside(report: dict[str, Any]) -> list[str]:
    out = [
        "## Side by side with pyavd",
        "",
        "Both compilers as whole processes started cold, one after the other at each size, medians of the",
        "runs: ours (`python -m fabricops compile --full`: every switch rendered) as a fresh checkout compiles",
        "(no `generated/`, no `.fabricops-cache/`: templates compiled, every intent file validated), and with",
        "both in place (only what differs written, templates and validated intent files kept); pyavd",
        "(`bench/avd_run.py`: `validate_inputs` once per distinct set of inputs, `get_avd_facts`,",
        "`get_device_structured_config` and `get_device_config` for",
        "every device, each config written to an empty folder) on the same compute and storage fabrics as",
        "AVD `eos_designs` inputs (`bench/avd_inputs.py`), with the servers scoped per leaf pair as an AVD",
        "inventory keeps them. pyavd has no counterpart of the management network (rack switches, core), so",
        "each compiler is divided by its own switches and its own configured lines (`bench/lines.py`:",
        "comments, `end` and unused-port stanzas not counted). Both start from cached bytecode, as installed",
        "packages do: `make bench` byte-compiles fabricops' packages first (pip compiled pyavd's).",
        "",
        "| size | switches ours / pyavd | configured lines ours / pyavd | ours cold s | ours, generated/ current s"
        " | pyavd s | ours / pyavd peak RSS MiB | per switch | per configured line | per switch, ours current |"
        " per switch, CPU s (ours cold / pyavd) | load |",
        "| --- " * 12 + "|",
    ]
    for factor, entry in _sizes(report):
        side = entry.get("sidebyside")
        if not side:
            continue
        mine = side["ours"]
        if not _avd_ok(entry):
            why = side.get("pyavd", {}).get("error") or ["not measured at this size"]
            out.append(
                f"| {factor}x | {mine['switches']} / - | {mine['lines']:,} / - | {_s(mine['cold']['seconds'], 2)} |"
                f" {_s(mine['current']['seconds'], 2)} | pyavd: {' '.join(why)} | {mine['cold']['peak_rss_mib']:.0f}"
                f" / - | - | - | - | - | {entry.get('load_at_start', '-')} |"
            )
            continue
        theirs, cold, current = side["pyavd"], side["ratio_cold"], side["ratio_current"]
        out.append(
            f"| {factor}x | {mine['switches']} / {theirs['switches']} | {mine['lines']:,} / {theirs['lines']:,} |"
            f" {_s(mine['cold']['seconds'], 2)} | {_s(mine['current']['seconds'], 2)} | {_s(theirs['seconds'], 2)} |"
            f" {mine['cold']['peak_rss_mib']:.0f} / {theirs['peak_rss_mib']:.0f} | {_x(cold['per_switch'])} |"
            f" {_x(cold['per_line'])} | {_x(current['per_switch'])} | {_x(_cpu_ratio(side))}"
            f" ({_s(mine['cold']['cpu'], 2)} / {_s(theirs['cpu'], 2)}) | {entry.get('load_at_start', '-')} |"
        )
    out += [
        "",
        "The ratio columns are pyavd's time over ours (higher: ours is faster); the CPU column divides"
        " each process's own CPU seconds (user + system), which other work on the machine inflates"
        " less than wall time. Runs per cell: "
        + ", ".join(
            f"{f}x ours {e['sidebyside']['ours']['cold']['runs']}"
            + (f", pyavd {e['sidebyside']['pyavd']['runs']}" if _avd_ok(e) else "")
            for f, e in _sizes(report)
            if "sidebyside" in e
        )
        + ".",
    ]
    stages = [
        f"{f}x: " + ", ".join(f"{k} {v:.2f}" for k, v in e["sidebyside"]["pyavd"]["stages"].items())
        for f, e in _sizes(report)
        if _avd_ok(e)
    ]
    if stages:
        out += ["", "pyavd's own stages (seconds, inside its process): " + "; ".join(stages) + "."]
    if not report["pyavd"].get("version"):
        out += ["", f"pyavd could not be imported by `{report['pyavd']['python']}`: side by side not measured."]
    return [*out, ""]


def _cpu_ratio(side: dict[str, Any]) -> float:
    """pyavd's CPU seconds per switch over ours (cold): steadier than wall time on a shared machine."""
    mine, theirs = side["ours"], side["pyavd"]
    return float((theirs["cpu"] / theirs["switches"]) / (mine["cold"]["cpu"] / mine["switches"]))


def _floor_table(report: dict[str, Any]) -> list[str]:
    out = [
        "## Floor",
        "",
        "A bare Jinja2 render + write of the same lines from ready dicts (each file cut into sections",
        "beforehand, one template that only loops and prints), in this benchmark's process: the least a",
        "Jinja2 compiler producing that text can spend. *configs*: the switch configs only; *all*: every",
        "file ours writes, in the same layout. Ours: the whole process into an empty `generated/`.",
        "",
        "| size | config lines | floor configs s | all files | floor all s | ours cold s | ours / floor configs"
        " | ours / floor all |",
        "| --- " * 8 + "|",
    ]
    for factor, entry in _sizes(report):
        fc, fa = entry["floor"]["configs"], entry["floor"]["all"]
        ours = entry["sidebyside"]["ours"]["cold"]["seconds"]
        out.append(
            f"| {factor}x | {fc['lines']:,} | {_s(fc['seconds'])} | {fa['files']:,} | {_s(fa['seconds'])} |"
            f" {_s(ours, 2)} | {_x(ours / fc['seconds'])} | {_x(ours / fa['seconds'])} |"
        )
    return [*out, ""]


def _inprocess_table(report: dict[str, Any]) -> list[str]:
    out = [
        "## In-process compile, per stage (warm interpreter)",
        "",
        "The figure earlier runs of this benchmark compared with pyavd's whole process: `compile_intent` +",
        "`write_generated` in an interpreter that has already imported everything, each size in its own",
        "process (peak RSS is that size's own), medians of the runs (the first writes into an empty",
        "`generated/`, later ones find it in place). Not comparable with the whole-process figures above.",
        "",
        "| size | switches | servers | config lines | files | "
        + " | ".join(STAGES)
        + " | total s | CPU s | ms/switch | peak RSS MiB | runs |",
        "| --- " * (11 + len(STAGES) - 1) + "|",
    ]
    previous = None
    growth = []
    for factor, entry in _sizes(report):
        c = entry["inprocess"]
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
    if growth:
        out += ["", "Total time growth between sizes (each step is 4x the racks): " + ", ".join(growth) + "."]
    return [*out, ""]


def _fleet_table(report: dict[str, Any]) -> list[str]:
    fleet = report.get("fleet") or {}
    out = [
        "## Fleet operations on the lab",
        "",
        "The compiled root as a git repository, the lab started at factory default (`fabricops lab up",
        "--empty`), then each verb as its own process with `--lab`: `plan` of the factory-default fleet,",
        "`deploy` of every device, `plan` and `drift` of the fleet in sync (medians of the runs), one device",
        "changed (a line of `extra_config`, recompiled and committed) and `deploy` again. CLI CPU and peak",
        "RSS are the verb's process's; lab CPU is what the lab process (every emulated switch, one",
        "process) spent meanwhile: its share is the lab's part of the CPU time, not the product's.",
        "",
        "| size | step | switches | seconds | switches/s | CLI CPU s | lab CPU s | lab share | CLI peak RSS MiB"
        " | runs | load | exit |",
        "| --- " * 12 + "|",
    ]
    for factor, result in sorted((int(k), v) for k, v in fleet.items()):
        if "steps" not in result:
            out.append(f"| {factor}x | not run: {result.get('error', '')} |" + " |" * 10)
            continue
        for step, m in result["steps"].items():
            name = f"{step}: {m['changed']}" if m.get("changed") else step
            share = f"{100 * m['lab_share']:.0f}%" if "lab_share" in m else "-"
            out.append(
                f"| {factor}x | {name} | {m['devices']} | {_s(m['seconds'], 2)} | {m['switches_per_s']:.0f} |"
                f" {_s(m.get('cpu'), 2)} | {_s(m.get('lab_cpu'), 2)} | {share} | {m['peak_rss_mib']:.0f} |"
                f" {m.get('runs', 1)} | {m.get('load', '-')} | {m['rc']} |"
            )
        if result.get("error"):
            out.append(f"| {factor}x | stopped: {result['error']} |" + " |" * 10)
    samples = [
        f"{f}x {step}: {', '.join(str(s) for s in m['samples'])} s"
        for f, r in sorted((int(k), v) for k, v in fleet.items())
        for step, m in r.get("steps", {}).items()
        if m.get("samples")
    ]
    if samples:
        out += ["", "Every run: " + "; ".join(samples) + "."]
    per_switch = [
        f"{f}x {step}: CLI {m['cpu_ms_per_switch']:.2f} ms, lab {m['lab_ms_per_switch']:.2f} ms"
        f" (the CLI alone {m['client_per_core']:.0f} switches/s per core, CLI and lab {m['both_per_core']:.0f})"
        for f, r in sorted((int(k), v) for k, v in fleet.items())
        for step, m in r.get("steps", {}).items()
        if "in sync" in step and "cpu_ms_per_switch" in m
    ]
    if per_switch:
        out += ["", "CPU per switch: " + "; ".join(per_switch) + "."]
    compared = [(int(f), r["compare"]) for f, r in fleet.items() if "compare" in r]
    if compared:
        out += [
            "",
            "The comparison alone (`bench/compare.py`: each switch's config compared with itself as drift"
            " compares, parse, defaults, diff; no lab, no network; CPU of this process): "
            + "; ".join(
                f"{f}x: {c['ms_per_switch']:.2f} ms per switch ({c['cpu_seconds']:.2f} s for {c['switches']}),"
                f" at most {c['ceiling_per_core']:.0f} switches/s on one core"
                + (
                    f"; recognised as in sync from the memo of an earlier run: {c['memo_ms_per_switch']:.3f} ms"
                    if "memo_ms_per_switch" in c
                    else ""
                )
                for f, c in sorted(compared)
            )
            + ". The rest of a run's wall time is the lab answering (its CPU in the table), the transport"
            " and the CLI's start.",
        ]
    return [*out, ""]


def _incremental(report: dict[str, Any]) -> list[str]:
    found = report.get("incremental")
    if not found:
        return []
    out = [
        "## Incremental recompile",
        "",
        "One row (`rack03-gpu010`) added to `servers.csv`, then `fabricops compile` as a whole process",
        "(the record of the last compile in `.fabricops-cache/`: switches whose structured document is",
        "unchanged keep their files); against `fabricops compile --full` of the same root (every switch",
        "rendered again, `generated/` current). *Identical*: the incremental `generated/` equals a full",
        "compile of the same intent into an empty root, file by file.",
        "",
        "| size | switches rendered | incremental s | full s | speedup | each round | incremental CPU s"
        " | full CPU s | CPU speedup | files touched | other switches' files | identical | runs | load |",
        "| --- " * 14 + "|",
    ]
    for factor, inc in sorted((int(k), v) for k, v in found.items()):
        out.append(
            f"| {factor}x | {inc['rendered']} of {inc['switches_total']} | {_s(inc['process_seconds'], 2)} |"
            f" {_s(inc['full_seconds'], 2)} | {_x(inc['speedup'])} | {_each_round(inc)} |"
            f" {_s(inc.get('cpu_seconds'), 2)} |"
            f" {_s(inc.get('full_cpu_seconds'), 2)} | {_x(inc.get('cpu_speedup'))} | {len(inc['touched'])} |"
            f" {len(inc['foreign']) or 'none'} | {'yes' if inc['identical'] else 'NO'} | {inc['runs']} |"
            f" {inc.get('load_at_start', '-')} |"
        )
    first = next(iter(found.values()))
    out += ["", f"The server is cabled to {', '.join(first['switches'])}."]
    return [*out, ""]


def _checks(report: dict[str, Any]) -> list[str]:
    found = report.get("checks")
    if not found or len(found["sizes"]) < 2:
        return []
    (small, a), (large, b) = sorted((int(k), v) for k, v in found["sizes"].items())[:2]
    g = checks_growth(a, b)
    fleet = ", ".join(f"{g[k]:.2f}x the {k}" for k in CHECK_SIZES if k in g)
    out = [
        "## Checks, rule by rule",
        "",
        f"Each rule alone over the resolved fabric, CPU seconds of its process, from cold (what the rules"
        f" memoise forgotten) with the collector paused as in the compile, median of {found['runs']} runs,"
        " both sizes in one process, the runs interleaved (each round times every rule at both sizes)"
        f" (load average {found.get('load_at_start', '-')}). {small}x: {a['devices']} switches, {a['links']:,}"
        f" links; {large}x: {b['devices']} switches, {b['links']:,} links ({fleet}). The look-ups several"
        f" rules share (interfaces by name, parsed addresses, links by kind) are built once per run and"
        f" timed apart: {1000 * a.get('shared', 0):.1f} and {1000 * b.get('shared', 0):.1f} ms. Shared"
        f" look-ups and every rule: {checks_total(a):.3f} s and {checks_total(b):.3f} s, **{g['sum']:.2f}x**;"
        f" `run_checks` as the compile calls it: {a['all_rules']:.3f} s and {b['all_rules']:.3f} s,"
        f" {g['all_rules']:.2f}x.{_fastest_checks(a, b)} *Per input*: the rule's growth over the growth of"
        " what it reads (1.00: it grows exactly as its input); below a few milliseconds the growth is mostly"
        " timer noise.",
        "",
        f"| rule | {small}x ms | {large}x ms | growth | input | per input |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for rid, seconds in sorted(b["rules"].items(), key=lambda kv: -kv[1]):
        out.append(
            f"| {rid} | {1000 * a['rules'][rid]:.2f} | {1000 * seconds:.2f} | {g['rules'][rid]:.2f}x"
            f" | {INPUTS.get(rid, 'devices')} | {g['per_input'][rid]:.2f}x |"
        )
    return [*out, ""]


def _scaling(report: dict[str, Any]) -> list[str]:
    found = report.get("scaling")
    if not found:
        return []
    (low, a), (high, b) = sorted((int(k), v) for k, v in found["sizes"].items())
    g, c = found["growth"], found["checks_growth"]
    stages = list(a["stages"])
    out = [
        f"## Scaling, {low}x to {high}x",
        "",
        f"`fabricops compile --full` as a whole process with `generated/` current (every switch and server"
        f" rendered again, only what differs written), {found['runs']} rounds taking turns between the sizes,"
        f" medians (load average {found.get('load_at_start', '-')}); the first compile of each size, into an"
        " empty `generated/`, timed once. The checks rule by rule at both sizes in one process"
        f" (`bench/checks.py`, {found['checks']['runs']} rounds). *Per switch*: the growth over the"
        " switches' growth (1.00: linear).",
        "",
        f"| | {low}x | {high}x | growth | per switch |",
        "| --- | --- | --- | --- | --- |",
        f"| switches | {a['switches']} | {b['switches']} | {g['switches']:.2f}x | |",
    ]
    rows = [("wall s", "seconds", 2), ("CPU s", "cpu", 2), ("peak MiB", "peak_rss_mib", 0)]
    for label, key, digits in rows:
        out.append(
            f"| `compile --full`, {label} | {a[key]:.{digits}f} | {b[key]:.{digits}f} | {g[key]:.2f}x"
            f" | {g['per_switch'][key]:.2f}x |"
        )
    for name in stages:
        if name in g["stages"]:
            out.append(
                f"| {name} s | {a['stages'][name]:.3f} | {b['stages'][name]:.3f} | {g['stages'][name]:.2f}x"
                f" | {g['per_switch']['stages'][name]:.2f}x |"
            )
    checks = found["checks"]["sizes"]
    small, large = (checks[k] for k in sorted(checks, key=int))
    out += [
        f"| `run_checks` as the compile calls it, ms | {1000 * small['all_rules']:.0f}"
        f" | {1000 * large['all_rules']:.0f} | {c['all_rules']:.2f}x | {c['all_rules'] / g['switches']:.2f}x |",
        f"| checks, shared look-ups and each rule alone from cold, ms | {1000 * checks_total(small):.0f}"
        f" | {1000 * checks_total(large):.0f} | {c['sum']:.2f}x | {c['sum'] / g['switches']:.2f}x |",
        f"| into an empty `generated/`, wall s | {a['empty']['seconds']:.1f} | {b['empty']['seconds']:.1f}"
        f" | {b['empty']['seconds'] / a['empty']['seconds']:.2f}x | |",
        "",
        f"Every round, wall s: {low}x {', '.join(str(x) for x in a['samples'])}; {high}x"
        f" {', '.join(str(x) for x in b['samples'])}.",
        "",
    ]
    return out


def _fastest_checks(small: dict[str, Any], large: dict[str, Any]) -> str:
    if "fastest" not in small or "fastest" not in large:
        return ""
    a, b = small["fastest"], large["fastest"]
    return (
        f" The fastest run of each figure (a longer run more often shares the core with other work):"
        f" {a['sum']:.3f} s and {b['sum']:.3f} s, {b['sum'] / a['sum']:.2f}x."
    )


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
