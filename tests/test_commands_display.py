"""pyfed.commands.display: tables at any width (no word broken, no cell truncated, rows stacked
below the columns' minimum), progress of staged work (terminal display / one line per finished
stage), and output in ASCII when the stream cannot take UTF-8."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from rich.table import Table

from pyfed.commands.display import Stages, ascii_spelling, ascii_text, print_table, safe_output, table_layout

WORDS = ["logistic-breast_cancer-dirichlet0.5", "17213764849598353014546871/710440501680448312373867446272",
         "holds (numerical)", "Monte Carlo 99.9% t-interval, R=64", "all met"]


def _table():
    t = Table(title="pyfed check: ConvexWithoutNoiseTerm (examples/statements/convex_no_noise.lean:19)")
    for h in ("instance", "left side", "verdict", "evidence", "hypotheses"):
        t.add_column(h, no_wrap=True)            # no_wrap: the default would truncate with an ellipsis
    t.add_row(WORDS[0], WORDS[1], WORDS[2], WORDS[3], WORDS[4])
    t.add_row("quadratic-rational-N8-d4", "0.5113 ± 0.00016", "[bold green]holds[/]", "exact moments, exact rationals",
              "FAIL: h ≤ 1/(81 β)")
    return t


def _render(width: int, table=None) -> str:
    buf = io.StringIO()
    print_table(Console(file=buf, width=width, force_terminal=False, color_system=None), table or _table())
    return buf.getvalue()


def _all_words(t: Table):
    con = Console(width=200)
    out = []
    for col in t.columns:
        for c in [col.header] + list(col.cells):
            out += con.render_str(c).plain.split() if isinstance(c, str) else str(c).split()
    return out


@pytest.mark.parametrize("width", [10, 40, 80, 100, 140, 250])
def test_no_word_is_broken_and_no_cell_truncated_at_any_width(width):
    """Every word of every cell appears whole in the output, nothing is replaced by an ellipsis,
    and no line of a laid-out table is wider than the console."""
    out = _render(width)
    tokens = {t.rstrip(":") for t in re.split(r"[\s│┃|]+", out)}
    for w in _all_words(_table()):
        assert w.rstrip(":") in tokens, (w, width, out)
    assert "…" not in out
    if "┃" in out:
        assert max(len(line) for line in out.splitlines()) <= width


def test_narrow_console_stacks_rows_as_field_value_lines():
    out = _render(10)
    assert "┃" not in out and "│" not in out
    lines = out.splitlines()
    assert f"instance: {WORDS[0]}" in lines
    assert f"left side: {WORDS[1]}" in lines
    assert "verdict: holds" in lines and "hypotheses: FAIL: h ≤ 1/(81 β)" in lines
    assert lines[0].startswith("pyfed check: ConvexWithoutNoiseTerm")
    assert "" in lines          # rows separated by a blank line


def test_wide_enough_console_keeps_columns_and_short_cells_on_one_line():
    out = _render(140)
    assert "┃ instance" in out and WORDS[1] in out
    assert max(len(line) for line in out.splitlines()) <= 140
    out = _render(200)      # room for every short cell: labels and numbers stay on one line
    assert "holds (numerical)" in out and "0.5113 ± 0.00016" in out and "FAIL: h ≤ 1/(81 β)" in out


def test_layout_widths_respect_words_and_room():
    con = Console(width=160, force_terminal=False)
    t = _table()
    w = table_layout(con, t)
    longest = [max(len(x) for c in [col.header] + list(col.cells) for x in con.render_str(c).plain.split())
               for col in t.columns]
    assert all(a >= b for a, b in zip(w, longest))
    assert sum(w) + t._extra_width + 2 * len(w) <= 160
    assert table_layout(Console(width=60, force_terminal=False), t) is None


def test_caption_and_empty_table():
    t = Table(title="t", caption="a caption")
    t.add_column("a")
    assert "a caption" in _render(5, t)
    assert _render(80, Table()) is not None


# ------------------------------------------------------------------------------------------
# progress
# ------------------------------------------------------------------------------------------

def test_stages_off_a_terminal_print_one_line_per_finished_stage():
    buf = io.StringIO()
    with Stages("pyfed check", stream=buf) as s:
        s.start("instance A")
        s.note("not printed off a terminal")
        s.start("instance B")
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r"pyfed check: instance A done \(\d+\.\d s\)", lines[0])
    assert re.fullmatch(r"pyfed check: instance B done \(\d+\.\d s\)", lines[1])


def test_stages_complete_mode_and_errors_finish_nothing():
    buf = io.StringIO()
    with Stages("pyfed experiment", total=3, stream=buf) as s:
        s.note("running")
        s.complete("cell 1")
    assert buf.getvalue().startswith("pyfed experiment: cell 1 done (")
    buf = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        with Stages("x", stream=buf) as s:
            s.start("a")
            raise KeyboardInterrupt
    assert buf.getvalue() == ""


def test_stages_on_a_terminal_show_a_live_display():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    buf = Tty()
    with Stages("pyfed check", stream=buf) as s:
        s.start("quadratic instance")
        advance, close = s.bar("profile", 4)
        advance(2)
        close()
    out = buf.getvalue()
    assert "pyfed check [1]: quadratic instance" in out
    assert "done (" not in out       # no stage lines on a terminal


# ------------------------------------------------------------------------------------------
# output encoding
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ch, text", [("≤", "<="), ("×", "x"), ("±", "+/-"), ("σ", "sigma"), ("η", "eta"),
                                      ("Σ", "Sigma"), ("²", "^2"), ("₀", "_0"), ("é", "e"), ("‖", "||"),
                                      ("⋆", "*"), ("→", "->"), ("a", "a"), ("\U0001f600", "?")])
def test_ascii_spellings(ch, text):
    assert ascii_spelling(ch) == text


def test_ascii_text_and_an_ascii_stream(monkeypatch):
    assert ascii_text("h ≤ 1/(81 β)") == "h <= 1/(81 beta)"
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr("sys.stdout", stream)
    safe_output()
    print("σ ≤ 1 ± 0.1", file=stream)
    stream.flush()
    assert raw.getvalue().decode("ascii") == "sigma <= 1 +/- 0.1\n"


def test_utf8_streams_are_left_alone(monkeypatch):
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr("sys.stdout", stream)
    safe_output()
    assert stream.errors == "strict"


def test_ascii_console_tables_stay_aligned():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="pyfed-ascii")
    print_table(Console(file=stream, width=200), _table())
    stream.flush()
    text = raw.getvalue().decode("ascii")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len({len(r) for r in rows}) == 1, text       # every row as wide as the others
    assert "0.5113 +/- 0.00016" in text and "FAIL: h <= 1/(81 beta)" in text


def test_stages_count_units_with_an_estimate_in_log_mode():
    import io

    from pyfed.commands.display import Stages

    buf = io.StringIO()
    with Stages("pyfed check", stream=buf, terminal=False) as st:
        st.units(3, "statements")
        for name in ("A", "B", "C"):
            st.start(f"{name}: search", unit=True)
    lines = buf.getvalue().splitlines()
    assert [l.split(" (")[0] for l in lines if "search done" in l] == \
        ["pyfed check: A: search done", "pyfed check: B: search done", "pyfed check: C: search done"]
    counts = [l for l in lines if "statements done" in l]
    assert counts[0].startswith("pyfed check: 1 of 3 statements done, ETA ") and counts[0].endswith(" s")
    assert counts[-1] == "pyfed check: 3 of 3 statements done"
    # each unit's stage line comes before its count
    assert lines.index(counts[0]) == lines.index(next(l for l in lines if l.startswith("pyfed check: A"))) + 1
