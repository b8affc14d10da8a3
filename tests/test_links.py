"""A link is input (issue: a served classroom that one link cannot break): URL values are
parsed safely by type and echoed as plain text; cached values cannot be changed by a
session; cache keys are typed."""

from __future__ import annotations

import urllib.parse

import numpy as np
import pandas as pd
import panel as pn
import param
import pytest
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._url import apply_link, plain
from kmeviz_apps.bootstrap_explorer import BootstrapExplorer

HOSTILE = ["<script>document.title='owned'</script>", "<img src=x onerror=alert(1)>",
           "[click](javascript:alert(1))", "**big** `code` evil.example"]


def rendered(text: str) -> str:
    """The HTML Panel's Markdown pane sends to the browser for ``text``."""
    pane = pn.pane.Markdown(text)
    return pane._transform_object(pane.object)["object"]


@pytest.mark.parametrize("text", HOSTILE)
def test_an_echoed_value_renders_as_text_not_markup(text):
    html = rendered(plain(text, 200))
    assert "<script" not in html and "<img" not in html and "<a " not in html
    assert "<strong>" not in html and "<code>" not in html and "href" not in html


def test_bad_link_values_keep_their_defaults_and_are_named_as_text():
    explorer = BootstrapExplorer()
    search = ("?n=%C2%B2&seed=" + "9" * 4000 + "&alpha=nan&bandwidth=1e-300&n_resamples=-3"
              "&kernel=%3Cscript%3Ealert(1)%3C%2Fscript%3E&estimator=linear&null=normal"
              "&unknown=1&epsilon=2.5")
    ignored = apply_link(explorer, search)
    names = [item.split("=")[0].replace("\\_", "_") for item in ignored]
    assert names == ["n", "seed", "alpha", "n_resamples", "kernel"]
    assert (explorer.n, explorer.seed, explorer.alpha, explorer.kernel) == (
        500, 0, 0.05, "Gaussian")
    assert (explorer.estimator, explorer.null, explorer.epsilon) == ("linear", "normal", 2.5)
    assert all(len(item) < 120 for item in ignored)  # 4000 digits are not echoed whole
    assert "<script" not in rendered(", ".join(ignored))
    # 1e-300 is inside the widget's bounds: the views say why it cannot be used instead
    # of deciding "nan ... reject H0"
    assert explorer.bandwidth == 1e-300
    summary = explorer.summary_view()
    assert isinstance(summary, pn.pane.Alert) and "bandwidth must lie between" in summary.object


def test_a_cached_value_cannot_be_changed_by_a_session():
    @shared_cache(maxsize=4)
    def make(k):
        return {"x": np.arange(3.0), "rows": [1, 2], "table": pd.DataFrame({"a": [1, 2]})}

    value = make(0)
    with pytest.raises(ValueError):
        value["x"].setflags(write=True)  # memory is immutable bytes
    with pytest.raises(TypeError):
        value["y"] = 1  # a read-only mapping
    assert value["rows"] == (1, 2)
    value["table"].loc[0, "a"] = 99  # a reader's own copy
    assert make(0)["table"].loc[0, "a"] == 1


def test_cache_keys_are_typed():
    calls = []

    @shared_cache(maxsize=8)
    def echo(k):
        calls.append(k)
        return k

    for key in (1, 1.0, True, 1):
        echo(key)
    assert calls == [1, 1.0, True] and [type(c) for c in calls] == [int, float, bool]


def test_every_parameter_a_link_can_set_is_bounded():
    """Numbers have finite bounds at both ends, choices a finite list: nothing a URL sets
    can ask for unbounded work or memory."""
    import param
    from kmeviz_apps._url import url_parameters

    from kmeviz.apps import EXPLORERS, explorer_class

    unbounded = []
    for slug in EXPLORERS:
        explorer = explorer_class(slug)()
        for name in url_parameters(explorer):
            p = explorer.param[name]
            if isinstance(p, param.Number):
                low, high = p.bounds or (None, None)
                ok = low is not None and high is not None
            elif isinstance(p, (param.Selector, param.ListSelector)):
                ok = p.check_on_set and len(p.objects) < 100
            else:
                ok = isinstance(p, param.Boolean)
            if not ok:
                unbounded.append(f"{slug}.{name}")
    assert unbounded == []


@pytest.mark.parametrize("slug", sorted(__import__("kmeviz.apps").apps.EXPLORERS))
def test_every_value_a_widget_writes_to_the_url_reads_back(slug):
    """A shared link reopens the view: each selector choice and widget value written to
    the URL is read back to the same value (the Stein explorer's dimension 2 was written
    as "2" and then refused as "dimension=2 could not be used")."""
    from kmeviz_apps._url import url_parameters, url_text

    from kmeviz.apps import explorer_class

    explorer = explorer_class(slug)()
    for name in url_parameters(explorer):
        parameter = explorer.param[name]
        choices = (parameter.objects if isinstance(parameter, param.Selector)
                   and not isinstance(parameter, param.ListSelector)
                   else [getattr(explorer, name)])
        for value in choices:
            if value is None:
                continue
            fresh = explorer_class(slug)()
            search = "?" + urllib.parse.urlencode({name: url_text(fresh, name, value)})
            assert apply_link(fresh, search) == [], (name, value)
            assert getattr(fresh, name) == value, (name, value)


def test_a_link_sets_a_parameter_that_another_one_of_the_link_shows():
    """The data explorer's n belongs to its generators: a link choosing the blob grid and
    n = 700 gets both, whatever the order of its parameters (n was silently dropped)."""
    from kmeviz_apps._url import apply_link
    from kmeviz_apps.data_explorer import DataExplorer

    for query in ("source=Blob+grid+%28FastMMD+Fig.+4%29&n=700",
                  "n=700&source=Blob+grid+%28FastMMD+Fig.+4%29"):
        explorer = DataExplorer()
        assert apply_link(explorer, query) == []
        assert (explorer.source, explorer.n) == ("Blob grid (FastMMD Fig. 4)", 700)
    explorer = DataExplorer()  # not a generator: n stays hidden and unchanged
    assert apply_link(explorer, "n=700") == [] and explorer.n == 300


BIDI = ["\u202e", "\u202d", "\u202a", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f",
        "\u061c"]


@pytest.mark.parametrize("mark", BIDI)
def test_characters_that_reorder_text_are_shown_as_their_codes(mark):
    """Issue 61, finding 6: a file named "\\u202egpj.csv" read "vsc.jpg". In a message, a
    chip's label and a select's label, each such character shows as its code."""
    from kmeviz_apps._url import markup_safe_options, shown_options

    name = f"{mark}gpj.csv"
    code = f"[U+{ord(mark):04X}]"
    assert mark not in rendered(plain(name, 200)) and code in rendered(plain(name, 200))
    for options in (markup_safe_options([name]), shown_options([name])):
        (label, value), = options.items()
        assert mark not in label and code in label and value == name  # the value as typed


def test_an_uploaded_group_value_with_an_override_is_offered_neutralised():
    from types import SimpleNamespace

    from kmeviz_apps.data_explorer import DataExplorer

    explorer = DataExplorer()
    explorer._comparison.start = lambda *args: None
    rows = "".join(f"{g},{k}\n" for k in range(10) for g in ("\u202ea", "b"))
    explorer._box.receive(SimpleNamespace(new={"\u202eg.csv": ("grp,x\n" + rows).encode()}))
    assert "\u202e" not in explorer._box.message.object
    labels = list(explorer.param.group_x.names)  # what the select shows
    assert "[U+202E]a" in labels and not any("\u202e" in label for label in labels)
    assert explorer.group_x == "\u202ea"  # the value itself is what the user's table holds
