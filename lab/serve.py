"""``python -m lab.serve``: the background lab process that ``fabricops lab up`` starts.

It reads ``generated/`` (work tree or ``--ref``), starts every device, writes
``.lab/lab.json`` atomically and serves until SIGTERM. The password and the
control token come from the environment (never the command line, which
``ps`` shows to every user).
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import threading
from pathlib import Path
from typing import Any

from core.errors import FabricopsError
from core.generated import LAB_CERT, LAB_INFO, open_snapshot
from lab.emulator import Lab
from lab.fromgenerated import specs_from_snapshot
from lab.process import ENV_PASSWORD, ENV_TOKEN
from lab.state import write_json_atomic


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.serve")
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--state-dir", type=Path, required=True)
    parser.add_argument("--ref")
    parser.add_argument("--empty", action="store_true")
    parser.add_argument("--device", action="append", default=[])
    parser.add_argument("--model", action="append", default=[], help="DEVICE=MODEL: start DEVICE as MODEL")
    parser.add_argument("--username", default="admin")
    parser.add_argument("--eos-version")
    args = parser.parse_args(argv)

    password = os.environ.pop(ENV_PASSWORD, "admin")
    token = os.environ.pop(ENV_TOKEN, "")
    models = dict(item.split("=", 1) for item in args.model)
    try:
        snapshot = open_snapshot(args.root, args.ref)
        only = set(args.device) or None
        specs, links = specs_from_snapshot(
            snapshot,
            empty=args.empty,
            only=only,
            lab_password=password,
            models=models,
            eos_version=args.eos_version,
        )
    except FabricopsError as exc:
        print(exc.message, flush=True)
        return 1
    if not specs:
        print("no devices: generated/ has no configs or inventory (run 'fabricops compile')")
        return 2
    lab = Lab(specs, links, username=args.username, password=password, state_dir=args.state_dir)
    for name, errors in lab.load_errors.items():
        for error in errors:
            print(f"{name}: {error}", flush=True)
    lab.start(control_token=token)
    assert lab.server is not None
    # Hundreds of switches' configs, grammar and caches live as long as the lab: out of the
    # garbage collector's full passes, which otherwise walk all of them again and again. A
    # deploy replaces every config (trees of thousands of objects each, no cycles among them):
    # collections far apart, so the collector does not walk the new ones after every few.
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    info: dict[str, Any] = {
        "pid": os.getpid(),
        "username": args.username,
        "password": password,
        "ref": snapshot.ref,
        "control": {"host": "127.0.0.1", "port": lab.server.control_port, "token": token},
        "devices": {n: {"host": h, "port": p} for n, (h, p) in lab.endpoints().items()},
        "tls_certificate": str(args.root / LAB_CERT),
    }
    for name, (_, port) in lab.endpoints(https=True).items():
        info["devices"][name]["https_port"] = port
    (args.root / LAB_CERT).write_bytes(lab.tls_certificate)
    info_file = args.root / LAB_INFO
    write_json_atomic(info_file, info)
    os.chmod(info_file, 0o600)
    print(f"serving {len(specs)} devices", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    lab.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
