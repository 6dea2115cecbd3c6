"""The fabric as a person looks at it: a static site built from ``generated/``.

``fabricops view`` calls :func:`view.site.build_site`. The pieces, one job each:

* :mod:`view.model` reads a :class:`core.generated.Snapshot` into a :class:`~view.model.Floor`;
* :mod:`view.elevation` lays racks out by rack unit; :mod:`view.ports` turns interface names
  into front-panel cages; :mod:`view.search` builds the search index;
* :mod:`view.draw` draws the neighbourhood (blast radius) of devices, grouped, as SVG; the
  neighbourhood itself is :mod:`core.topology`'s, which a review comment and a drift report
  draw as Mermaid (:mod:`core.mermaid`);
* :mod:`view.deployed` reads what each switch last verifiably ran from its state of record;
* :mod:`view.site` renders the pages (Jinja2) and writes the site; :mod:`view.serve` serves it.

This package imports only its light, drawing half here, so importing it costs little.
"""

from view.draw import neighbourhood_svg

__all__ = ["neighbourhood_svg"]
