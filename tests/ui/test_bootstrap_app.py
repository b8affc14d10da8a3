"""The bootstrap null explorer in real Chromium."""


import pytest
from kmeviz_apps.bootstrap_explorer import BootstrapExplorer
from playwright.sync_api import expect

from .helpers import TIMEOUT, legend_has, settled_number, show_tab, widget
from .helpers import open_app as _open


def open_app(page, server_url):
    _open(page, server_url, "Bootstrap null explorer", ".kmeviz-threshold")


NULL_PLOT_JS = ("() => Bokeh.documents.flatMap(d => [...d.all_models]).find(m => "
                "m.constructor.__name__ === 'Figure' && m.title && "
                "String(m.title.text).startsWith('p = '))")
ZOOM_JS = (f"([a, b]) => {{ const f = ({NULL_PLOT_JS})(); "
           "f.x_range.start = a; f.x_range.end = b; }")
X_RANGE_JS = f"() => {{ const f = ({NULL_PLOT_JS})(); return [f.x_range.start, f.x_range.end]; }}"
FIGURE_ID_JS = f"() => ({NULL_PLOT_JS})().id"
# (the plot arrives after the page: views compute their first state once it has loaded)
TITLE_HAS_JS = (f"t => {{ const f = ({NULL_PLOT_JS})(); "
                "return !!f && String(f.title.text).includes(t); }")
HISTOGRAM_TOPS_JS = ("() => Bokeh.documents.flatMap(d => [...d.all_models]).filter(m => "
                     "m.constructor.__name__ === 'ColumnDataSource' && 'top' in m.data)"
                     ".map(m => Array.from(m.data.top))")
SPAN_AT_JS = ("v => Bokeh.documents.flatMap(d => [...d.all_models]).some(m => "
              "m.constructor.__name__ === 'Span' && m.line_dash.length > 0 && "
              "Math.abs(m.location - v) <= 1e-6 * Math.abs(v))")


def test_alpha_moves_the_threshold_in_place_and_keeps_the_zoom(page, server_url):
    """An α step moves the dashed threshold line to the new threshold without redrawing
    the figure: a zoom set before the step is still there after it (issue 13, point 4)."""
    open_app(page, server_url)
    threshold = settled_number(page.locator(".kmeviz-threshold"))
    page.wait_for_function(SPAN_AT_JS, arg=float(threshold), timeout=TIMEOUT)
    start, end = page.evaluate(X_RANGE_JS)
    zoom = [start + 0.1 * (end - start), end - 0.2 * (end - start)]
    page.evaluate(ZOOM_JS, zoom)
    figure = page.evaluate(FIGURE_ID_JS)
    handle = widget(page, "α").locator(".noUi-handle")
    handle.focus()
    for _ in range(4):  # 0.05 -> 0.07 in steps of 0.005
        handle.press("ArrowRight")
    page.wait_for_function(TITLE_HAS_JS, arg="α = 0.07", timeout=TIMEOUT)
    expect(page.locator(".kmeviz-summary")).to_contain_text("α = 0.07", timeout=TIMEOUT)
    moved = settled_number(page.locator(".kmeviz-threshold"), other_than=threshold)
    assert float(moved) < float(threshold)  # a larger α lowers the threshold
    page.wait_for_function(SPAN_AT_JS, arg=float(moved), timeout=TIMEOUT)
    assert page.evaluate(FIGURE_ID_JS) == figure  # the same figure, updated in place
    assert page.evaluate(X_RANGE_JS) == pytest.approx(zoom, rel=1e-9)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_B_redraws_the_null_in_place_and_keeps_the_zoom(page, server_url):
    """New null replicates (a data update) go into the same figure: a zoom set before the
    change is still there after it (issue 13, point 4)."""
    open_app(page, server_url)
    page.wait_for_function(TITLE_HAS_JS, arg="(B = 1000)", timeout=TIMEOUT)
    start, end = page.evaluate(X_RANGE_JS)
    zoom = [start + 0.15 * (end - start), end - 0.25 * (end - start)]
    page.evaluate(ZOOM_JS, zoom)
    figure, bins = page.evaluate(FIGURE_ID_JS), page.evaluate(HISTOGRAM_TOPS_JS)
    B = widget(page, "B (replicates)").locator("input")
    B.fill("200")
    B.press("Enter")
    expect(page.locator(".kmeviz-replicates")).to_have_text("200", timeout=TIMEOUT)
    page.wait_for_function(TITLE_HAS_JS, arg="(B = 200)", timeout=TIMEOUT)
    assert page.evaluate(HISTOGRAM_TOPS_JS) != bins  # the histogram's data changed...
    assert page.evaluate(FIGURE_ID_JS) == figure  # ...in the same figure...
    assert page.evaluate(X_RANGE_JS) == pytest.approx(zoom, rel=1e-9)  # ...and zoom
    legend_has(page, "permutation null")


def test_invalid_combination_shows_a_message_and_recovers(page, server_url):
    open_app(page, server_url)
    widget(page, "Estimator").locator("select").select_option("linear")
    error = page.locator(".kmeviz-error").first
    expect(error).to_contain_text(
        "null='permutation' is not valid for estimator='linear'; valid nulls are normal",
        timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    widget(page, "Null").locator("select").select_option("normal")
    expect(page.locator(".kmeviz-replicates")).to_have_text("analytic", timeout=TIMEOUT)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


# Every value the progress bar takes, polled from its Bokeh model every 10 ms.
RECORD_PROGRESS_JS = """() => {
  window.kmevizProgress = [];
  setInterval(() => {
    for (const doc of Bokeh.documents)
      for (const m of doc.all_models)
        if (m.constructor.__name__ === 'Progress' && m.visible) {
          const seen = window.kmevizProgress;
          if (seen[seen.length - 1] !== m.value) seen.push(m.value);
        }
  }, 10);
}"""


def expected_repeat_result(B: int):
    """The rejection rate the app must show, computed here with the app's own code path."""
    explorer = BootstrapExplorer(n_resamples=B)
    explorer._repeat()  # not served: the job runs at once, in this thread
    return explorer.repeat_result.iloc[0]


def test_repeat_shows_rejection_rate_with_progress(page, server_url):
    open_app(page, server_url)
    widget(page, "B (replicates)").locator("input").fill("99")
    widget(page, "B (replicates)").locator("input").press("Enter")
    expect(page.locator(".kmeviz-replicates")).to_have_text("99", timeout=TIMEOUT)
    page.evaluate(RECORD_PROGRESS_JS)
    page.get_by_role("button", name="Repeat 100 times").click()
    rate = page.locator(".kmeviz-rate")
    expect(rate).to_be_visible(timeout=120_000)

    expected = expected_repeat_result(99)
    assert float(rate.inner_text()) == pytest.approx(expected["rate"], abs=0.005)
    # Blob grid with ε = 2, n = 500 (H1 true): the rate is significantly above α.
    assert expected["ci_low"] > 0.05
    expect(page.get_by_text(
        f"({expected['rejections']}/100), 95% interval [{expected['ci_low']:.3f}, "
        f"{expected['ci_high']:.3f}]")).to_be_visible()
    # The bar moved through intermediate values, in order, and ended full.
    seen = page.evaluate("() => window.kmevizProgress")
    assert seen[-1] == 100 and seen == sorted(seen), seen
    assert len([v for v in seen if 0 < v < 100]) >= 3, seen


def test_a_link_opens_its_state_and_the_url_follows_the_widgets(page, server_url):
    page.goto(f"{server_url}bootstrap?n_resamples=200&alpha=0.1")
    expect(page.locator(".kmeviz-replicates")).to_have_text("200", timeout=60_000)
    page.wait_for_function(TITLE_HAS_JS, arg="(B = 200)", timeout=TIMEOUT)
    expect(page.locator(".kmeviz-url-notice")).to_be_hidden()
    B = widget(page, "B (replicates)").locator("input")
    B.fill("300")
    B.press("Enter")
    expect(page.locator(".kmeviz-replicates")).to_have_text("300", timeout=TIMEOUT)
    page.wait_for_function("() => window.location.search.includes('n_resamples=300')",
                           timeout=TIMEOUT)  # a link copied now reopens this view


def test_a_garbled_link_opens_defaults_with_a_message(page, server_url):
    page.goto(f"{server_url}bootstrap?n_resamples=banana&alpha=7&null=%3Cscript%3E")
    notice = page.locator(".kmeviz-url-notice")
    expect(notice).to_contain_text("could not be used", timeout=60_000)
    expect(notice).to_contain_text("n_resamples")
    expect(page.locator(".kmeviz-replicates")).to_have_text("1000", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)


KERNEL_TITLE_JS = ("() => { const t = Bokeh.documents.flatMap(d => [...d.all_models]).find(m => "
                   "m.constructor.__name__ === 'Title' && String(m.text).startsWith('MMDAgg')); "
                   "return t ? String(t.text) : null; }")
# the σ of every marker of the kernel-choice plot, and of the rejecting ones
MARKERS_JS = ("() => Bokeh.documents.flatMap(d => [...d.all_models]).filter(m => "
              "m.constructor.__name__ === 'ColumnDataSource' && m.data.ratio !== undefined)"
              ".flatMap(m => Array.from(m.data.scale))")
REJECTING_JS = ("() => Bokeh.documents.flatMap(d => [...d.all_models]).filter(m => "
                "m.constructor.__name__ === 'LegendItem' && "
                "JSON.stringify(m.label).includes('rejects H0'))"
                ".flatMap(m => m.renderers.flatMap(r => Array.from(r.data_source.data.scale "
                "|| [])))")


def test_kernel_choice_markers_appear_and_epsilon_changes_which_reject(page, server_url):
    """Issue 27, point 6: the kernel-choice view marks every bandwidth of MMDAgg's
    collection, and moving ε changes which of them reject."""
    open_app(page, server_url)
    show_tab(page, "MMDAgg's σ")
    page.wait_for_function(f"() => ({KERNEL_TITLE_JS})() !== null", timeout=TIMEOUT)
    page.wait_for_function(f"() => ({MARKERS_JS})().length === 10", timeout=TIMEOUT)
    before = page.evaluate(REJECTING_JS)
    title = page.evaluate(KERNEL_TITLE_JS)
    handle = widget(page, "Epsilon").locator(".noUi-handle")
    handle.focus()
    handle.press("End")  # ε = 6: elongated blobs, which the small bandwidths see
    page.wait_for_function(f"t => ({KERNEL_TITLE_JS})() !== t", arg=title, timeout=60_000)
    page.wait_for_function(f"() => ({MARKERS_JS})().length === 10", timeout=TIMEOUT)
    after = page.evaluate(REJECTING_JS)
    assert len(after) > len(before), (before, after)  # more bandwidths reject
    assert "rejects H0" in page.evaluate(KERNEL_TITLE_JS)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_every_plot_tab_title_shows_in_a_narrow_window(page, server_url):
    """Eight tab titles beside the summary at 1200 px: Bokeh's tab header clipped the last
    ones (the open "Power per σ" tab could not be seen); they wrap to further lines."""
    page.set_viewport_size({"width": 1200, "height": 900})
    open_app(page, server_url)
    tabs = page.locator(".kmeviz-plots")
    expect(tabs.locator(".bk-tab")).to_have_count(len(BootstrapExplorer.PLOTS),
                                                   timeout=TIMEOUT)
    right = tabs.first.evaluate("el => el.getBoundingClientRect().right")
    for tab in tabs.locator(".bk-tab").all():
        box = tab.bounding_box()
        assert box is not None and box["x"] + box["width"] <= right + 1, tab.inner_text()


FIGURE_TITLED_JS = ("t => Bokeh.documents.flatMap(d => [...d.all_models]).some(m => "
                    "m.constructor.__name__ === 'Figure' && m.title && "
                    "String(m.title.text).startsWith(t))")


def test_the_criterion_curve_marks_the_learned_sigma_and_the_ard_map_its_path(page,
                                                                             server_url):
    """Issue 42: Ĵ over σ with the L-BFGS path ends at learn_kernel's σ (the legend says
    it, to 3 digits); on the d = 10 problem the ARD heat map draws its path."""
    page.goto(f"{server_url}bootstrap?n=300")
    expect(page.locator(".kmeviz-threshold")).to_be_visible(timeout=60_000)
    show_tab(page, "Ĵ over σ")
    page.wait_for_function(FIGURE_TITLED_JS, arg="Power criterion Ĵ", timeout=TIMEOUT)
    explorer = BootstrapExplorer(n=300)
    sigma = explorer.criterion_plot().get(2).data.iloc[0, 0]  # the ringed last iterate
    legend_has(page, f"learned σ = {sigma:.3g}")
    page.goto(f"{server_url}bootstrap?n=300&dataset=d+%3D+10%3A+two+coordinates+"
              "correlated+%28%CF%81%29")
    expect(page.locator(".kmeviz-threshold")).to_be_visible(timeout=60_000)
    show_tab(page, "Ĵ over two ARD scales")
    page.wait_for_function(FIGURE_TITLED_JS, arg="Ĵ over two ARD length scales",
                           timeout=TIMEOUT)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_the_power_of_each_kernel_choice_fills_in(page, server_url):
    """Every kernel choice's power bar fills in chunk by chunk (the progress bar passes
    intermediate values in order) and end at 50 draws."""
    page.goto(f"{server_url}bootstrap?n=60")
    expect(page.locator(".kmeviz-threshold")).to_be_visible(timeout=60_000)
    page.evaluate(RECORD_PROGRESS_JS)
    page.get_by_role("button", name="Power of each kernel choice (50 draws)").click()
    page.wait_for_function(FIGURE_TITLED_JS, arg="Power on fresh draws (50 so far",
                           timeout=120_000)
    seen = page.evaluate("() => window.kmevizProgress")
    assert seen[-1] == 50 and seen == sorted(seen), seen
    assert len([v for v in seen if 0 < v < 50]) >= 2, seen
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_stop_ends_a_running_power_job_and_keeps_its_draws(page, server_url):
    """Stop cancels the kernel-choice power job: the button is free again, the Stop button
    hides, and the bars of the draws so far stay."""
    page.goto(f"{server_url}bootstrap?n=700")
    expect(page.locator(".kmeviz-threshold")).to_be_visible(timeout=60_000)
    start = page.get_by_role("button", name="Power of each kernel choice (50 draws)")
    start.click()
    page.wait_for_function(FIGURE_TITLED_JS, arg="Power on fresh draws (5 so far",
                           timeout=120_000)
    page.get_by_role("button", name="Stop").click()
    expect(start).to_be_enabled(timeout=TIMEOUT)
    expect(page.get_by_role("button", name="Stop")).to_be_hidden(timeout=TIMEOUT)
    assert not page.evaluate(FIGURE_TITLED_JS, "Power on fresh draws (50 so far")
    expect(page.locator(".kmeviz-error")).to_have_count(0)
