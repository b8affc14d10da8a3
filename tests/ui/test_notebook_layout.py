"""The explorers as a notebook shows them (``__panel__``) in a narrow notebook column."""

import panel as pn
import pytest
from bokeh.resources import INLINE
from kmeviz_apps import EXPLORERS, explorer_class

# Boxes of every Bokeh plot canvas and every caption, through nested shadow roots.
BOXES_JS = """() => {
  const found = [];
  const walk = root => root.querySelectorAll('*').forEach(e => {
    if (e.matches('canvas, .kmeviz-caption')) found.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(document);
  return found.map(e => e.getBoundingClientRect())
    .filter(r => r.width > 30 && r.height > 10)
    .map(r => [r.left, r.top, r.right, r.bottom]);
}"""


def overlap(a, b) -> bool:
    """More than 8 px in both directions: a caption is pulled 6 px up into its plot's
    blank bottom margin on purpose (``.kmeviz-caption``'s CSS, once a page has set it)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width > 8 and height > 8


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_an_explorer_fits_a_900px_notebook_column(page, slug, tmp_path, monkeypatch):
    """Controls, summary and plots are cards that wrap: in a 900 px column no plot or
    caption overlaps another and nothing sticks out on the right (a fixed row of them
    overflowed, plots over captions)."""
    from kmeviz_apps._page import CSS

    monkeypatch.setattr(pn.config, "raw_css", [*pn.config.raw_css, CSS])  # as after page()

    explorer = explorer_class(slug)()
    html = tmp_path / f"{slug}.html"
    pn.Column(explorer, width=900).save(html, resources=INLINE)
    page.set_viewport_size({"width": 1100, "height": 900})
    page.goto(html.as_uri())
    page.wait_for_function(f"({BOXES_JS})().length >= {len(explorer.PLOTS) + 1}",
                           timeout=30_000)
    boxes = sorted({tuple(box) for box in page.evaluate(BOXES_JS)})  # a plot: 2 canvases
    assert max(box[2] for box in boxes) <= 900 + 10
    pairs = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlap(a, b)]
    assert pairs == []
