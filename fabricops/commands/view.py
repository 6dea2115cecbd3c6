"""``fabricops view``: the fabric as a static site built from generated/ (racks, servers, switches,
networks, search), to open from disk, publish as a CI artifact, or serve on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("view")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True)
@click.option("--ref", default=None, help="Build from generated/ at this git ref (default: the work tree).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write the site (default: ROOT/build/view); a previous site there is replaced.",
)
@click.option("--serve", is_flag=True, help="Then serve it on 127.0.0.1 until Ctrl-C.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port for --serve (0: any free one)."
)
def view_cmd(root: Path, ref: str | None, out: Path | None, serve: bool, port: int) -> None:
    """Build the fabric view: rack elevations, per-server cabling, per-switch port maps, configs and
    diffs against the last deploy, topology pictures and a search box; one HTML file per page.

    \b
    Examples:
      fabricops view                      # then open build/view/index.html
      fabricops view --ref origin/main --out /tmp/view-main
      fabricops view --serve              # http://127.0.0.1:<port>/index.html
    """
    from view.site import build_site

    target = out if out is not None else root / "build" / "view"
    built = build_site(root, ref, target)
    state = "with diffs against the last deploy" if built.deployed else "no deploy state to compare with"
    click.echo(
        f"wrote {target}: {built.pages} pages ({built.switches} switches, {built.servers} servers, "
        f"{built.rows} rows, {built.networks} networks; {state})"
    )
    if not serve:
        click.echo(f"open {(target / 'index.html').resolve().as_uri()} in a browser (no server needed)")
        return
    from view.serve import server, url_of

    httpd = server(target, port)
    click.echo(f"serving {url_of(httpd)} (Ctrl-C stops)")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
