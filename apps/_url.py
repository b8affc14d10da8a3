"""Links are input: the page URL's parameters parsed safely, and echoed values escaped.

A link can carry anything (markup, 4000 digits, Unicode digits that ``int()`` rejects,
NaN, repeated or unknown keys). Each known parameter's raw text is parsed here by its
type, with bounded lengths and ASCII numbers only, and then set through ``param``, whose
bounds refuse the rest; a value that cannot be used keeps its default and is named in a
notice as plain text (escaped for HTML and Markdown), never as markup.
"""

from __future__ import annotations

import html
import json
import math
import re
import urllib.parse

import panel as pn
import param

#: Parameter types that a widget sets and a URL can carry.
URL_TYPES = (param.Number, param.Selector, param.ListSelector, param.Boolean, param.String)
#: The longest raw value a link may give one parameter.
MAX_VALUE_CHARS = 200
_INTEGER = re.compile(r"[+-]?[0-9]{1,15}")
_NUMBER = re.compile(r"[+-]?([0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20})([eE][+-]?[0-9]{1,3})?")
#: what makes Markdown markup mid-line: emphasis, code, links and images, strike-through
_MARKDOWN = re.compile(r"([\\`*_\[\]~$])")


#: the characters that reorder the text around them (bidirectional embeddings, overrides
#: and isolates, the direction marks): a file named "\u202egpj.csv" reads "vsc.jpg"
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def neutral(text: str) -> str:
    """``text`` with each character that reorders text shown as its code (``[U+202E]``),
    so that a user's string reads in the order it was typed."""
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", str(text))


def shown_options(values) -> dict:
    """Options {label: value} of a widget that shows its labels as text (a Select): each
    label ``neutral``; the value stays the string itself."""
    return {neutral(value): value for value in values}


def plain(text: str, limit: int = 80) -> str:
    """``text`` shortened to ``limit`` characters and escaped, so that a Markdown or HTML
    pane shows it as typed: no tag, link or emphasis from it takes effect, and no
    character reorders it (``neutral``)."""
    text = " ".join(neutral(text).split())  # one line: no heading, list or quote from it
    if len(text) > limit:
        text = text[:limit] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;")  # no tag, no entity
    # a zero-width space inside anything a linkifier would take for a domain, a scheme or
    # an e-mail address (numbers such as 0.5 stay as typed)
    text = re.sub(r"([.@])(?=[^\W\d_])|:(?=//)", lambda m: m.group(0) + "\u200b", text)
    return _MARKDOWN.sub(r"\\\1", text)


def markup_safe_options(values) -> dict:
    """Options {label: value} for a widget that renders its labels as HTML (Bokeh's
    MultiChoice: Choices.js sets each chip's innerHTML): each label is ``value``
    HTML-escaped, so a user's string shows as typed and its markup never becomes an
    element; the widget's value stays the string itself."""
    return {html.escape(neutral(value), quote=True): value for value in values}


def parse_value(parameter: param.Parameter, raw: str):
    """The value a link's ``raw`` text means for ``parameter``; ValueError if none."""
    if len(raw) > MAX_VALUE_CHARS:
        raise ValueError(f"longer than {MAX_VALUE_CHARS} characters")
    if isinstance(parameter, param.Boolean):
        if raw.lower() not in ("true", "false"):
            raise ValueError("not true or false")
        return raw.lower() == "true"
    if isinstance(parameter, param.Integer):
        if not _INTEGER.fullmatch(raw):
            raise ValueError("not an integer")
        return int(raw)
    if isinstance(parameter, param.Number):
        if not _NUMBER.fullmatch(raw) or not math.isfinite(float(raw)):
            raise ValueError("not a finite number")
        return float(raw)
    if isinstance(parameter, param.ListSelector):
        values = json.loads(raw)
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ValueError("not a list of names")
        return list(dict.fromkeys(values))  # a repeated entry counts once
    if isinstance(parameter, param.Selector) and raw not in parameter.objects:
        # a selector of numbers (the Stein explorer's dimension 1 or 2): the URL writes
        # the number, and the link must read it back
        for value in parameter.objects:
            if url_text_of(value) == raw:
                return value
    return raw  # Selector, String: param checks it against the allowed objects


def url_parameters(explorer) -> list[str]:
    """The explorer's parameters a link may set: its widgets, not results held in params."""
    return [name for name, p in explorer.param.objects().items()
            if name != "name" and (p.precedence is None or p.precedence >= 0)
            and isinstance(p, URL_TYPES)]


def apply_link(explorer, search: str) -> list[str]:
    """Set the explorer's parameters from a URL query string, one by one; returns the
    ``name=value`` texts (escaped) of those that kept their defaults. A parameter that
    another one shows (a generator's n once the link chose that generator) is applied
    after the others, whatever the link's order."""
    ignored, pairs = [], urllib.parse.parse_qsl(search.lstrip("?"))[:100]
    for _round in range(2):
        names, later = url_parameters(explorer), []
        for name, raw in pairs:
            if name not in names:
                later.append((name, raw))  # unknown, or not shown yet: next round
                continue
            try:
                explorer.param.update(**{name: parse_value(explorer.param[name], raw)})
            except Exception:  # noqa: BLE001 - any bad value keeps the default, and says so
                ignored.append(f"{plain(name, 40)}={plain(raw)}")
        pairs = later  # unknown parameters are ignored after the second round
    return ignored


def url_text(explorer, name: str, value) -> str:
    """A parameter's value as the URL writes it."""
    if isinstance(explorer.param[name], param.ListSelector):
        return json.dumps(list(value))
    return url_text_of(value)


def url_text_of(value) -> str:
    """A single value as the URL writes it (``parse_value`` reads it back)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def sync_with_url(explorer) -> pn.pane.Alert:
    """Keep the explorer's parameters in the page URL, so that a lecturer can share a link
    to the exact view. Link values that cannot be applied are skipped, one by one, and
    named (as plain text) in the returned, initially hidden, message.

    One way after opening: the link is read once, then only widget changes write the
    URL. (Panel's two-way ``Location.sync`` also applies URL changes coming back from the
    browser; during quick key presses an older URL could arrive after a newer value and
    set the parameter back, e.g. α 0.07 → 0.065.) The URL is written from the explorer's
    own values, never by re-parsing what the link said."""
    notice = pn.pane.Alert("", alert_type="warning", visible=False,
                           css_classes=["kmeviz-url-notice"], sizing_mode="stretch_width")
    location = pn.state.location
    if location is None:
        return notice
    ignored = apply_link(explorer, location.search or "")
    if ignored:
        notice.object = ("**Some link parameters could not be used** and keep their "
                         f"default values: {', '.join(ignored)}")
        notice.visible = True
    names = url_parameters(explorer)

    def write(*_events):
        location.search = "?" + urllib.parse.urlencode(
            {name: url_text(explorer, name, getattr(explorer, name)) for name in names
             if getattr(explorer, name) is not None})

    write()
    explorer.param.watch(write, names)
    return notice
