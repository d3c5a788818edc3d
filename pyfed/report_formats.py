"""The report of ``pyfed check`` for CI servers and people: JUnit XML (:func:`junit_xml`) and a
self-contained HTML page (:func:`html_report`), both built from the JSON report document
(:data:`pyfed.report.SCHEMA`, the dict :mod:`pyfed.report` writes), never from verdict objects:
what CI shows is what the JSON says.

JUnit XML (the format Jenkins, GitLab, GitHub Actions and Azure read; it validates against the
schema in ``tests/data/junit.xsd``): one ``<testsuite>`` per Lean file (and one for the default
report's built-in theorem instances), one ``<testcase>`` per statement, named by its Lean name,
with its ``file`` and ``line``:

* a violated statement is a ``<failure>`` whose text is each violated row with its witness (both
  sides, the candidate, the counterexample files);
* an inconclusive statement is ``<skipped>`` with the reason (the rows' reasons; a vacuous
  statement's proof that its hypotheses never hold);
* a statement that holds on every row passes; every row is listed in ``<system-out>``.

HTML: one page with no external resource (styles inline, plots as inline SVG): the summary, then
per statement its verdict table, a plot of each row's left side over its right side (1 = the
bound is attained; above 1 = violated), the witness of a violation, PEP certificates, the constant
profile and what the reader read. It opens in any browser without a network.
"""

from __future__ import annotations

import html
import io
import os
import re
from xml.etree import ElementTree as ET

__all__ = ["junit_xml", "html_report", "side_text", "statement_groups"]


# ------------------------------------------------------------------------------------------
# shared: the document's statements, grouped by file, and the text of a side
# ------------------------------------------------------------------------------------------

def _path_line(source) -> tuple:
    """``("path", line)`` of a ``path:line`` source (line None when absent)."""
    if not source:
        return "", None
    m = re.match(r"^(.*):(\d+)$", str(source))
    return (m.group(1), int(m.group(2))) if m else (str(source), None)


def statement_groups(doc: dict) -> list:
    """``[(group name, [(entry, [verdict dicts])])]``: the report's statements grouped by their
    file, in report order; verdicts of no statement (the default report's built-in theorem
    instances) form one more group, each verdict an entry of its own."""
    verdicts = doc.get("verdicts") or []
    used, groups = set(), {}
    for e in doc.get("statements") or []:
        rows = [verdicts[i] for i in e.get("verdicts") or [] if 0 <= i < len(verdicts)]
        used.update(e.get("verdicts") or [])
        groups.setdefault(_path_line(e.get("source"))[0] or "statements", []).append((e, rows))
    loose = [(i, v) for i, v in enumerate(verdicts) if i not in used]
    out = []
    if loose:
        out.append(("built-in theorem instances", [
            ({"lean_name": f"{v.get('statement')} [{(v.get('details') or {}).get('instance', i)}]",
              "source": v.get("source") or (v.get("details") or {}).get("source"), "status": v.get("status"),
              "family": "built-in instance"}, [v]) for i, v in loose]))
    out.extend(groups.items())
    return out


def side_text(side) -> str:
    """One side (or margin, ratio) of a verdict as the JSON report gives it, as text: the exact
    rational, its certified decimal, a Monte Carlo estimate with its interval, or the float."""
    if side is None:
        return "-"
    if not isinstance(side, dict):
        return str(side)
    if side.get("estimate") is not None:
        lo, hi = (side.get("interval") or [None, None])[:2]
        conf = side.get("confidence")
        return (f"{side['estimate']:.6g} ({100 * conf:g}% interval [{lo:.6g}, {hi:.6g}])" if lo is not None
                and conf else f"{side['estimate']:.6g}")
    if side.get("exact") is not None:
        exact = str(side["exact"])
        return exact if len(exact) <= 40 else f"{side.get('float', 0):.12g} (exact: {len(exact)} characters)"
    if side.get("decimal") is not None:
        return str(side["decimal"]) + (f" (exact: {side['exact_chars']} characters)" if side.get("exact_chars") else "")
    if side.get("float") is not None:
        return f"{side['float']:.12g}"
    return "-"


def _ratio(v: dict):
    """The row's left side over its right side as a float (Monte Carlo: the estimate), or None."""
    r = v.get("ratio")
    if isinstance(r, dict):
        x = r.get("estimate", r.get("float"))
        return float(x) if isinstance(x, (int, float)) else None
    return None


def _row_name(v: dict) -> str:
    d = v.get("details") or {}
    return str(d.get("instance") or d.get("engine") or v.get("evidence") or v.get("statement"))


def _reason(v: dict) -> str:
    d = v.get("details") or {}
    return str(v.get("reason") or d.get("reason") or d.get("search_result") or v.get("label") or "")


def _witness_lines(v: dict, entry: dict) -> list:
    d = v.get("details") or {}
    lines = [f"{_row_name(v)}: {v.get('label', v.get('status'))} ({v.get('evidence') or 'no evidence named'})"]
    if d.get("description"):
        lines.append(f"  candidate {d.get('index', '')}: {d['description']}".replace("candidate : ", ""))
    if d.get("witness_text"):
        lines.append(f"  {d['witness_text']}")
    lines.append(f"  left side {side_text(v.get('lhs'))}; right side {side_text(v.get('rhs'))}; "
                 f"margin {side_text(v.get('margin'))}")
    for f in entry.get("exports") or []:
        lines.append(f"  counterexample file: {f}")
    return lines


# ------------------------------------------------------------------------------------------
# JUnit XML
# ------------------------------------------------------------------------------------------

def _clean_xml(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold."""
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "?", str(text))


def _classname(path: str) -> str:
    stem = os.path.splitext(path)[0].strip("./") if path else "pyfed"
    return re.sub(r"[/\\]+", ".", stem) or "pyfed"


def junit_xml(doc: dict) -> str:
    """The JUnit XML text of a report document (see the module docstring)."""
    root = ET.Element("testsuites", name="pyfed check")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    timing = doc.get("timing") or {}
    for group, entries in statement_groups(doc):
        suite = ET.SubElement(root, "testsuite", name=_clean_xml(group))
        props = ET.SubElement(suite, "properties")
        for key in ("pyfed", "schema", "seed", "quick", "replicates", "budget"):
            ET.SubElement(props, "property", name=key, value=_clean_xml(doc.get(key)))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for entry, rows in entries:
            path, line = _path_line(entry.get("source"))
            case = ET.SubElement(suite, "testcase", name=_clean_xml(entry.get("lean_name") or entry.get("statement")),
                                 classname=_clean_xml(_classname(path if group != "built-in theorem instances"
                                                                 else "pyfed.builtin")))
            if path:
                case.set("file", _clean_xml(path))
            if line is not None:
                case.set("line", str(line))
            secs = [s for k, s in (timing.get(str(entry.get("lean_name"))) or {}).items()
                    if isinstance(s, (int, float)) and k.startswith("engine.")]
            if secs:
                case.set("time", f"{sum(secs):.3f}")
            counts["tests"] += 1
            status = entry.get("status") or "inconclusive"
            if status == "violated":
                counts["failures"] += 1
                bad = [v for v in rows if v.get("status") == "violated"]
                first = bad[0] if bad else {}
                fd = first.get("details") or {}
                message = fd.get("witness_text") or f"violated: {_row_name(first)}"
                fail = ET.SubElement(case, "failure", message=_clean_xml(message), type="violated")
                fail.text = _clean_xml("\n".join(line for v in bad for line in _witness_lines(v, entry)))
            elif status != "holds":
                counts["skipped"] += 1
                if entry.get("vacuous"):
                    why = f"vacuous: {entry.get('vacuous_reason') or 'the hypotheses never hold'}"
                else:
                    why = "; ".join(dict.fromkeys(f"{_row_name(v)}: {_reason(v)}" for v in rows
                                                  if v.get("status") != "holds")) or "no verdict"
                ET.SubElement(case, "skipped", message=_clean_xml(why))
            out = ET.SubElement(case, "system-out")
            out.text = _clean_xml("\n".join(
                f"{_row_name(v)}: {v.get('label', v.get('status'))}; left {side_text(v.get('lhs'))}; "
                f"right {side_text(v.get('rhs'))}" for v in rows) or "no rows")
        for k, n in counts.items():
            suite.set(k, str(n))
            totals[k] += n
        suite.set("errors", "0")
    for k, n in totals.items():
        root.set(k, str(n))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;
color:#1b1f24;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #d0d7de}
h3{font-size:1.05em;margin-top:1.5em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em;width:100%}
th,td{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.badge{display:inline-block;padding:.05em .55em;border-radius:1em;font-weight:600;font-size:.85em;color:#fff}
.holds{background:#1a7f37}.violated{background:#cf222e}.inconclusive{background:#9a6700}
.witness{border-left:4px solid #cf222e;background:#fff5f5;padding:.5em 1em;margin:.8em 0}
.certificate{border-left:4px solid #1a7f37;background:#f3fbf5;padding:.5em 1em;margin:.8em 0}
.note{color:#57606a;font-size:.9em}figure{margin:.5em 0}figure svg{max-width:100%;height:auto}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;font-size:.85em}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _badge(status: str, label: str | None = None) -> str:
    status = status if status in ("holds", "violated", "inconclusive") else "inconclusive"
    return f'<span class="badge {status}">{_e(label or status)}</span>'


def _ratio_plot(name: str, rows: list) -> str:
    """An inline SVG: each row's left side over its right side on a log axis (a Monte Carlo row
    with its interval), the bound's 1 as a line; '' when no row has a finite ratio."""
    pts = []
    for v in rows:
        r = _ratio(v)
        if r is None or not r > 0 or r != r or r == float("inf"):
            continue
        lo = hi = None
        ratio = v.get("ratio") if isinstance(v.get("ratio"), dict) else {}
        if ratio.get("interval"):
            lo, hi = ratio["interval"][:2]
        pts.append((_row_name(v)[:48], r, lo, hi, v.get("status")))
    if not pts:
        return ""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 0.55 * len(pts) + 1.1))
    ax = fig.add_subplot(1, 1, 1)
    colours = {"holds": "#1a7f37", "violated": "#cf222e"}
    for k, (label, r, lo, hi, status) in enumerate(pts):
        colour = colours.get(status, "#9a6700")
        if lo is not None and hi is not None and lo > 0:
            ax.plot([lo, hi], [k, k], color=colour, linewidth=2)
        ax.plot([r], [k], "o", color=colour, markersize=7)
    ax.axvline(1.0, color="#1b1f24", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(pts)), [p[0] for p in pts], fontsize=8)
    ax.set_xscale("log")
    xs = [p[1] for p in pts] + [1.0]
    ax.set_xlim(min(xs) / 3, max(xs) * 3)
    ax.set_ylim(-0.7, len(pts) - 0.3)
    ax.invert_yaxis()
    ax.set_xlabel("left side / right side (1: the bound is attained; above 1: violated)", fontsize=8)
    ax.set_title(name, fontsize=9)
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]                       # drop the XML prologue and DOCTYPE
    return f'<figure class="plot" aria-label="{_e(name)}: left side over right side">{svg}</figure>'


def _rows_table(rows: list) -> str:
    out = ["<table class=\"verdicts\"><thead><tr><th>row</th><th>verdict</th><th>evidence</th><th>left side</th>"
           "<th>right side</th><th>left / right</th></tr></thead><tbody>"]
    for v in rows:
        reason = _reason(v) if v.get("status") == "inconclusive" else ""
        out.append(f"<tr><td>{_e(_row_name(v))}" + (f'<div class="note">{_e(reason)}</div>' if reason else "")
                   + f"</td><td>{_badge(v.get('status', ''), v.get('label'))}</td><td>{_e(v.get('evidence') or '-')}</td>"
                   f"<td class=\"num\">{_e(side_text(v.get('lhs')))}</td><td class=\"num\">{_e(side_text(v.get('rhs')))}</td>"
                   f"<td class=\"num\">{_e(side_text(v.get('ratio')))}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _link(path: str, base_dir) -> str:
    target = path
    if base_dir is not None and not os.path.isabs(path):
        try:
            target = os.path.relpath(os.path.abspath(path), os.path.abspath(base_dir))
        except ValueError:
            target = path
    return f'<a href="{_e(target)}">{_e(path)}</a>'


def _statement_section(entry: dict, rows: list, base_dir) -> str:
    name = str(entry.get("lean_name") or entry.get("statement"))
    anchor = "st-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)
    parts = [f'<section class="statement" id="{_e(anchor)}"><h3>{_e(name)} {_badge(entry.get("status", ""))}</h3>',
             f'<p class="note">{_e(entry.get("source") or "")} · {_e(entry.get("family") or "")}</p>']
    if entry.get("vacuous"):
        parts.append(f"<p>Vacuous: {_e(entry.get('vacuous_reason') or 'the hypotheses never hold')}</p>")
    if rows:
        parts.append(_rows_table(rows))
        parts.append(_ratio_plot(name, rows))
    for v in rows:
        if v.get("status") == "violated":
            lines = _witness_lines(v, {})
            parts.append('<div class="witness"><strong>Witness</strong><pre>' + _e("\n".join(lines)) + "</pre>"
                         + "".join(f"<div>counterexample file: {_link(f, base_dir)}</div>"
                                   for f in entry.get("exports") or []) + "</div>")
        cert = (v.get("details") or {}).get("pep_certificate")
        if isinstance(cert, dict):
            verified = cert.get("verified")
            parts.append('<div class="certificate"><strong>PEP certificate</strong> '
                         + ("verified exactly" if verified else f"not verified: {_e(cert.get('reason', ''))}")
                         + "<table><tbody>" + "".join(f"<tr><th>{_e(k)}</th><td class=\"num\">{_e(x)}</td></tr>"
                                                      for k, x in sorted(cert.items()) if not isinstance(x, (dict, list)))
                         + f"</tbody></table><div class=\"note\">{_e((v.get('details') or {}).get('instance', ''))}</div></div>")
    prof = entry.get("profile")
    if isinstance(prof, dict) and prof.get("constants"):
        parts.append("<h4>Constant profile</h4><table><thead><tr><th>constant</th><th>safe values on the decided "
                     "instances</th><th>note</th></tr></thead><tbody>")
        for c in prof["constants"]:
            parts.append(f"<tr><td>{_e(c.get('description') or c.get('constant'))}</td>"
                         f"<td class=\"num\">{_e(c.get('needed_display') or c.get('needed_decimal') or '-')}</td>"
                         f"<td>{_e(c.get('note') or '')}</td></tr>")
        parts.append("</tbody></table>")
    engines = entry.get("engines")
    if isinstance(engines, dict) and engines:
        parts.append("<details><summary>Engines</summary><table><tbody>" + "".join(
            f"<tr><th>{_e(k)}</th><td>{'applies' if (e or {}).get('applies') else 'does not apply'}</td>"
            f"<td>{_e((e or {}).get('why', ''))}</td></tr>" for k, e in engines.items()) + "</tbody></table></details>")
    parts.append("</section>")
    return "".join(parts)


def html_report(doc: dict, *, base_dir=None) -> str:
    """The self-contained HTML page of a report document (see the module docstring);
    ``base_dir``: the directory the page is written to (links to counterexample files are made
    relative to it)."""
    summ = doc.get("summary") or {}
    sts, vs = summ.get("statements") or {}, summ.get("verdicts") or {}
    head = (f"<h1>pyfed check report</h1><p class=\"note\">pyfed {_e(doc.get('pyfed', ''))} · schema "
            f"{_e(doc.get('schema', ''))} · seed {_e(doc.get('seed'))} · {'quick' if doc.get('quick') else 'full'} run"
            + (" · files: " + ", ".join(_e(f) for f in doc.get("files") or []) if doc.get("files") else "") + "</p>")
    summary = ("<table class=\"summary\"><thead><tr><th></th><th>total</th><th>violated</th><th>holds</th>"
               "<th>inconclusive</th></tr></thead><tbody>"
               f"<tr><th>statements</th><td>{_e(sts.get('total', 0))}</td><td>{_e(sts.get('violated', 0))}</td>"
               f"<td>{_e(sts.get('holds', 0))}</td><td>{_e(sts.get('inconclusive', 0))}</td></tr>"
               f"<tr><th>rows</th><td>{_e(vs.get('total', 0))}</td><td>{_e(vs.get('violated', 0))}</td>"
               f"<td>{_e(vs.get('holds', 0))} ({_e(vs.get('certified', 0))} certified)</td>"
               f"<td>{_e(vs.get('inconclusive', 0))}</td></tr></tbody></table>"
               "<p class=\"note\">One violated row makes a statement false; rows that hold do not make it true "
               "(instances, a search, certificates at stated parameters). pyfed proves nothing in Lean.</p>")
    body = []
    for group, entries in statement_groups(doc):
        body.append(f"<h2>{_e(group)}</h2>")
        body.extend(_statement_section(e, rows, base_dir) for e, rows in entries)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>pyfed check report</title><style>{_CSS}</style></head><body>"
            + head + summary + "".join(body) + "</body></html>\n")
