"""Make Qt's SVG output render the same in every viewer (librsvg, ImageMagick, browsers).

QSvgGenerator writes each chart item in its own data coordinates under a group transform
(x scaled by ~200, y by ~-9) and keeps cosmetic pens thin with vector-effect="non-scaling-stroke".
Viewers that ignore vector-effect scale the 1-unit strokes by the transform: bars vanish under
their outlines and lines turn into bands. Baking each group's transform into its shapes' own
coordinates leaves nothing for a viewer to get wrong. Text is named in the font Qt used and given the
length Qt measured, so ImageMagick's own renderer does not space a caption's runs apart.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_MATRIX = re.compile(r"matrix\(([^)]*)\)")
_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"({_NUMBER})\s*,\s*({_NUMBER})")
_SHAPES = {"path", "polyline", "polygon", "rect", "ellipse", "circle", "line"}

Matrix = tuple[float, float, float, float, float, float]


def _tag(el: ET.Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _fmt(v: float) -> str:
    return f"{v:.4f}".rstrip("0").rstrip(".") or "0"


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _map_pairs(text: str, m: Matrix) -> str:
    def one(match: re.Match) -> str:
        x, y = _apply(m, float(match.group(1)), float(match.group(2)))
        return f"{_fmt(x)},{_fmt(y)}"
    return _PAIR.sub(one, text)


def _bake_shape(el: ET.Element, m: Matrix) -> bool:
    """Rewrite one shape in the group's parent coordinates; False if it cannot be (left as it was)."""
    a, b, c, d, _, _ = m
    tag = _tag(el)
    if tag == "path":
        d_attr = el.get("d", "")
        if re.search(r"[AaHhVvSsQqTtmlcz]", d_attr):  # only Qt's absolute M/L/C/Z are rewritten
            return False
        el.set("d", _map_pairs(d_attr, m))
    elif tag in ("polyline", "polygon"):
        el.set("points", _map_pairs(el.get("points", ""), m))
    elif tag == "line":
        x1, y1 = _apply(m, float(el.get("x1", 0)), float(el.get("y1", 0)))
        x2, y2 = _apply(m, float(el.get("x2", 0)), float(el.get("y2", 0)))
        for k, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)):
            el.set(k, _fmt(v))
    elif tag == "rect" and b == 0 and c == 0 and not el.get("rx"):
        x, y = _apply(m, float(el.get("x", 0)), float(el.get("y", 0)))
        w, h = a * float(el.get("width", 0)), d * float(el.get("height", 0))
        el.set("x", _fmt(min(x, x + w)))
        el.set("y", _fmt(min(y, y + h)))
        el.set("width", _fmt(abs(w)))
        el.set("height", _fmt(abs(h)))
    elif tag in ("ellipse", "circle") and b == 0 and c == 0:
        cx, cy = _apply(m, float(el.get("cx", 0)), float(el.get("cy", 0)))
        el.set("cx", _fmt(cx))
        el.set("cy", _fmt(cy))
        if tag == "circle":
            if abs(abs(a) - abs(d)) > 1e-9:
                return False
            el.set("r", _fmt(abs(a) * float(el.get("r", 0))))
        else:
            el.set("rx", _fmt(abs(a) * float(el.get("rx", 0))))
            el.set("ry", _fmt(abs(d) * float(el.get("ry", 0))))
    else:
        return False
    return True


def _bake_group(g: ET.Element) -> None:
    match = _MATRIX.search(g.get("transform", ""))
    if not match:
        return
    values = [float(v) for v in re.split(r"[,\s]+", match.group(1).strip())]
    if len(values) != 6:
        return
    m: Matrix = tuple(values)  # type: ignore[assignment]
    children = list(g)
    # text, images, gradients and nested groups keep the transform (they are drawn right as they are)
    if not children or any(_tag(ch) not in _SHAPES for ch in children):
        return
    if "url(" in (g.get("fill", "") + g.get("stroke", "")):
        return
    cosmetic = any(ch.get("vector-effect") == "non-scaling-stroke" for ch in children)
    # bake into copies first: a group is rewritten whole or not at all
    copies = [ET.fromstring(ET.tostring(ch)) for ch in children]
    if not all(_bake_shape(ch, m) for ch in copies):
        return
    for old, new in zip(children, copies):
        new.attrib.pop("vector-effect", None)
        g.remove(old)
        g.append(new)
    if not cosmetic:  # a geometric pen scaled with the shapes
        scale = math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
        for attr in ("stroke-width",):
            if g.get(attr):
                g.set(attr, _fmt(float(g.get(attr)) * scale))
        if g.get("stroke-dasharray") and g.get("stroke-dasharray") != "none":
            g.set("stroke-dasharray", ",".join(_fmt(float(v) * scale) for v in re.split(r"[,\s]+", g.get("stroke-dasharray").strip())))
    del g.attrib["transform"]


Measure = Callable[[str, str, float, int], float]  # (text, family, size, weight) -> advance in the same units


def _fix_text(el: ET.Element, families: Mapping[str, str], measure: Measure | None) -> None:
    """Name the font Qt laid the text out with (not its generic "Sans Serif", which each viewer maps to a font
    of its own, so runs of a caption drifted apart), and give the run the length Qt measured for it, so a viewer
    whose font differs still ends the run where the next begins."""
    family = el.get("font-family", "")
    if family in families:
        el.set("font-family", families[family])  # one name: ImageMagick reads a list as one unknown name
    run = el.text or ""
    if measure is not None and run.strip() and len(el) == 0:
        try:
            width = measure(run, families.get(family, family), float(el.get("font-size", "0")), int(el.get("font-weight", "400")))
        except ValueError:
            return
        if width > 0:
            el.set("textLength", _fmt(width))
            el.set("lengthAdjust", "spacingAndGlyphs")


def portable_svg(text: str, families: Mapping[str, str] | None = None, measure: Measure | None = None) -> str:
    """Qt's SVG with every shape group's transform baked in and no vector-effect left on them; with `families`
    (Qt's family name -> the font it resolved to) and `measure`, every text run in that font and at Qt's length."""
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    root = ET.fromstring(text.encode("utf-8"))
    for g in root.iter(f"{{{SVG_NS}}}g"):
        _bake_group(g)
    for el in root.iter(f"{{{SVG_NS}}}text"):
        _fix_text(el, families or {}, measure)
    for g in root.iter(f"{{{SVG_NS}}}g"):  # a group's font too, which its text may inherit
        if g.get("font-family") in (families or {}):
            g.set("font-family", families[g.get("font-family")])
    return '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + ET.tostring(root, encoding="unicode")


def svg_fonts(text: str) -> dict[str, str]:
    """Each font family Qt wrote into an SVG -> the family the font resolved to here ("Sans Serif" -> "DejaVu Sans")."""
    from PySide6.QtGui import QFont, QFontInfo

    return {family: QFontInfo(QFont(family)).family() for family in set(re.findall(r'font-family="([^"]*)"', text))}


def svg_text_width(run: str, family: str, size: float, weight: int) -> float:
    """A run's advance in Qt's metrics, for a font of `size` SVG units (the generator's pixels)."""
    from PySide6.QtGui import QFont, QFontMetricsF

    font = QFont(family)
    font.setPixelSize(max(1, round(size)))
    font.setWeight(QFont.Weight(min(max(weight, 100), 900)))
    return QFontMetricsF(font).horizontalAdvance(run)
