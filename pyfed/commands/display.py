"""Display helpers of the command front ends: tables that fit any width, progress of staged work,
and output streams that take any text.

* :func:`print_table` prints a rich Table at the console's width without ever breaking a word or
  truncating a cell: the columns get widths of their own (each at least its longest word), and
  when even those do not fit, every row is printed as ``field: value`` lines instead.
* :class:`Stages` shows the progress of a command made of stages (statements, engines, cells): a
  live display on stderr when stderr is a terminal, else one line per finished stage.
* :func:`safe_output` makes stdout and stderr take any text: where the stream's encoding cannot
  write a symbol (``PYTHONIOENCODING=ascii``, some CI consoles) it writes an ASCII spelling
  (``≤`` as ``<=``, ``σ`` as ``sigma``, ``×`` as ``x``) or ``?``, instead of failing after the work.
"""

from __future__ import annotations

import codecs
import sys
import time
import unicodedata

__all__ = ["print_table", "table_layout", "Stages", "safe_output", "ascii_spelling", "ascii_text"]


# ------------------------------------------------------------------------------------------
# tables
# ------------------------------------------------------------------------------------------

def _cell_text(console, cell) -> str:
    """Plain text of a table cell (markup strings rendered as rich would)."""
    from rich.text import Text

    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        return console.render_str(cell).plain
    return str(cell)


def _words(text: str) -> list:
    return [w for line in text.splitlines() for w in line.split()]


def table_layout(console, table) -> list | None:
    """Column widths (content cells) that fit ``table`` in ``console.width`` with every word whole:
    None when the columns' longest words alone do not fit (print the rows stacked instead), else a
    list of widths, each between the column's longest word and its longest line, the room left
    over shared in proportion to what each column could still use."""
    from rich.cells import cell_len

    cols = table.columns
    if not cols:
        return []
    texts = [[_cell_text(console, c.header)] + [_cell_text(console, x) for x in c.cells] for c in cols]
    mins = [max([cell_len(w) for t in col for w in _words(t)] or [1]) for col in texts]
    maxs = [max(m, max([cell_len(line) for t in col for line in (t.splitlines() or [""])] or [1]))
            for m, col in zip(mins, texts)]
    extra = table._extra_width + sum(table._get_padding_width(i) for i in range(len(cols)))
    room = console.width - extra
    if sum(mins) > room:
        return None
    if sum(maxs) <= room:
        return maxs
    widths = list(mins)
    left = room - sum(mins)
    # short columns first get their whole lines (numbers and labels stay on one line), then the
    # longer ones share what is left in proportion to what each could still use
    for i in sorted(range(len(cols)), key=lambda i: maxs[i] - mins[i]):
        need = maxs[i] - widths[i]
        if need <= left:
            widths[i] = maxs[i]
            left -= need
    want = [M - w for w, M in zip(widths, maxs)]
    total = sum(want)
    if total > 0 and left > 0:
        shares = [left * w // total for w in want]
        for i in sorted(range(len(cols)), key=lambda i: -want[i])[:left - sum(shares)]:
            shares[i] += 1
        widths = [w + min(sh, wa) for w, sh, wa in zip(widths, shares, want)]
    return widths


def _ascii_table(table) -> None:
    """Replace every non-ASCII character of ``table`` (title, caption, headers, string cells; the
    plain text of Text cells) by its ASCII spelling (:func:`ascii_spelling`)."""
    from rich.text import Text

    def conv(x):
        if isinstance(x, str):
            return ascii_text(x)
        if isinstance(x, Text):
            return Text(ascii_text(x.plain), style=x.style)
        return x

    table.title, table.caption = conv(table.title), conv(table.caption)
    for col in table.columns:
        col.header = conv(col.header)
        col._cells = [conv(c) for c in col._cells]


def print_table(console, table) -> None:
    """Print ``table`` so that no word is broken and no cell is truncated, at any width: with the
    widths of :func:`table_layout` (cells wrap between words), or, when the columns cannot fit,
    stacked: the title, then each row as ``header: value`` lines (one physical line each: a
    terminal or log viewer wraps them), then the caption."""
    from rich.markup import escape
    from rich.text import Text

    if not str(console.encoding or "").lower().startswith("utf"):
        _ascii_table(table)     # spell the symbols in ASCII before the layout, so the columns stay aligned
    widths = table_layout(console, table)
    if widths is not None:
        from rich.cells import cell_len

        for col, w in zip(table.columns, widths):
            col.no_wrap = False
            col.overflow = "fold"
            col.width = w
            col.min_width = col.max_width = None
        # a title or caption with a word wider than the table is printed on its own lines
        inner = sum(widths) + table._extra_width + sum(table._get_padding_width(i) for i in range(len(widths)))
        title, caption = table.title, table.caption
        long = [x is not None and max([cell_len(w) for w in _words(_cell_text(console, x))] or [0]) > inner
                for x in (title, caption)]
        if long[0]:
            console.print(Text(_cell_text(console, title), style="bold"), soft_wrap=True)
            table.title = None
        if long[1]:
            table.caption = None
        console.print(table)
        if long[1]:
            console.print("[dim]" + escape(_cell_text(console, caption)) + "[/dim]", soft_wrap=True)
        return
    if table.title:
        console.print(Text(_cell_text(console, table.title), style="bold"), soft_wrap=True)
    headers = [_cell_text(console, c.header) for c in table.columns]
    rows = list(zip(*[c.cells for c in table.columns])) if table.columns else []
    for n, row in enumerate(rows):
        if n:
            console.print("", soft_wrap=True)
        for h, cell in zip(headers, row):
            if isinstance(cell, Text):
                text = cell
            else:
                text = console.render_str(cell) if isinstance(cell, str) else Text(str(cell))
            line = Text.assemble((f"{h}: ", "bold"), text)
            console.print(line, soft_wrap=True)
    if table.caption:
        console.print("[dim]" + escape(_cell_text(console, table.caption)) + "[/dim]", soft_wrap=True)


# ------------------------------------------------------------------------------------------
# progress
# ------------------------------------------------------------------------------------------

class Stages:
    """Progress of a command made of stages, on stderr.

    On a terminal: a transient rich display (spinner, the current stage's label, stages done --
    of ``total`` when known --, elapsed time; sub-bars from :meth:`bar`). Elsewhere (a pipe, a
    file, a CI log): one line per finished stage, ``<title>: <label> done (<seconds> s)``, and
    nothing else. Two ways to drive it:

    * :meth:`start` (label) before each stage: the previous stage is then finished, and the last
      one when the context exits normally (an exception -- an error, Ctrl-C -- finishes nothing);
    * :meth:`complete` (label) after each stage, with :meth:`note` (text) for what runs meanwhile
      (shown on a terminal only).

    Work counted in units (statements) says how far it is: :meth:`units` (n, noun) announces n
    units, :meth:`unit_done` (or ``start(label, unit=True)``, which finishes the previous unit)
    counts one; the display then reads ``k of n statements, ETA 40 s`` (the estimate: the mean
    time of the units done so far times the units left), on a terminal in the live line, elsewhere
    as one line ``<title>: k of n statements done, ETA …`` per unit.

    Parameters
    ----------
    title : str
        The command (``"pyfed check"``).
    total : int | None
        Number of stages, when known (a bar), else a spinner.
    stream : file | None
        Where to write (default ``sys.stderr``).
    terminal : bool | None
        Force the terminal display or the line mode (default: ``stream.isatty()``).
    """

    def __init__(self, title: str, total: int | None = None, *, stream=None, terminal: bool | None = None):
        self.title = title
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        if terminal is None:
            try:
                terminal = bool(self.stream.isatty())
            except (AttributeError, ValueError):
                terminal = False
        self.terminal = terminal
        self.done = 0
        self._label = None
        self._t0 = time.perf_counter()
        self._progress = None
        self._task = None
        self._units = None         # [total, noun, done, start time, a unit open]

    def __enter__(self):
        self._t0 = time.perf_counter()
        if self.terminal:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            console = Console(file=self.stream, force_terminal=True)
            cols = [SpinnerColumn(), TextColumn("[bold]{task.description}")]
            if self.total:
                cols += [BarColumn(), MofNCompleteColumn()]
            cols.append(TimeElapsedColumn())
            self._progress = Progress(*cols, console=console, transient=True)
            self._progress.__enter__()
            self._task = self._progress.add_task(self.title, total=self.total)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self._label is not None:
            self.complete(self._label)
        if exc_type is None and self._units is not None and self._units[4]:
            self.unit_done()
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)
        return False

    def _describe(self, text: str) -> None:
        from rich.markup import escape

        n = f" [{self.done + 1}/{self.total}]" if self.total else f" [{self.done + 1}]"
        units = f" ({self.units_text()})" if self._units is not None else ""
        self._progress.update(self._task, description=escape(f"{self.title}{n}{units}: {text}"))

    def units(self, total: int, noun: str = "statements") -> None:
        """Announce ``total`` units of work (see the class docstring); one unit alone is not counted."""
        self._units = [int(total), noun, 0, time.perf_counter(), False] if total > 1 else None

    def units_text(self) -> str:
        """``"k of n statements, ETA 40 s"`` (``"n of n statements"`` when all are done)."""
        total, noun, done, t0, _ = self._units
        text = f"{done} of {total} {noun}"
        if 0 < done < total:
            left = (time.perf_counter() - t0) / done * (total - done)
            text += f", ETA {_duration(left)}"
        return text

    def unit_done(self) -> None:
        """One unit finished: the count and the estimate move on."""
        if self._units is None:
            return
        if self._label is not None:       # the unit's last stage ends with it
            self.complete(self._label)
        self._units[2] += 1
        self._units[4] = False
        if self._progress is None:
            print(f"{self.title}: {self.units_text().replace(self._units[1], self._units[1] + ' done', 1)}",
                  file=self.stream, flush=True)
        elif self._label is not None:
            self._describe(self._label)

    def complete(self, label: str) -> None:
        """The stage ``label`` has just finished (its time: since the previous one finished)."""
        self._label = None
        self.done += 1
        now = time.perf_counter()
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done)
        else:
            print(f"{self.title}: {label} done ({now - self._t0:.1f} s)", file=self.stream, flush=True)
        self._t0 = now

    def start(self, label: str, unit: bool = False) -> None:
        """Finish the current stage (if any) and start the stage ``label``; ``unit``: it begins a
        new unit of :meth:`units` (the previous one, if open, is then done)."""
        if self._label is not None:
            self.complete(self._label)
        if unit and self._units is not None:
            if self._units[4]:
                self.unit_done()
            self._units[4] = True
        self._label = str(label)
        self._t0 = time.perf_counter()
        self.note(self._label)

    def note(self, text: str) -> None:
        """Show ``text`` as what runs now (terminal only)."""
        if self._progress is not None:
            self._describe(str(text))

    def bar(self, label: str, total: int):
        """A sub-bar of ``total`` steps under the display (terminal only): returns
        ``(advance(k), close())`` callables; both do nothing off a terminal."""
        if self._progress is None:
            return (lambda k=1: None), (lambda: None)
        from rich.markup import escape

        task = self._progress.add_task(escape(label), total=total)
        return (lambda k=1: self._progress.advance(task, k)), (lambda: self._progress.remove_task(task))


def _duration(seconds: float) -> str:
    """``"40 s"``, ``"3 min 20 s"``, ``"1 h 5 min"``."""
    s = int(round(max(seconds, 0)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


# ------------------------------------------------------------------------------------------
# output encoding
# ------------------------------------------------------------------------------------------

#: ASCII spellings of the symbols pyfed prints (anything else: its compatibility decomposition
#: without accents, the name of a Greek letter, or ``?``).
ASCII = {"≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "×": "x", "±": "+/-", "−": "-", "–": "-", "—": "-",
         "…": "...", "→": "->", "←": "<-", "↔": "<->", "·": "*", "⋆": "*", "★": "*", "∑": "sum", "∏": "prod",
         "√": "sqrt", "‖": "||", "∈": "in", "∉": "not in", "∧": "and", "∨": "or", "¬": "not", "∀": "forall",
         "∃": "exists", "ℝ": "R", "ℕ": "N", "ℚ": "Q", "ℤ": "Z", "⁻": "^-", "†": "+", "•": "*", "✓": "ok",
         "✗": "x", "“": '"', "”": '"', "‘": "'", "’": "'", "µ": "mu", "\u00a0": " ", "━": "-", "─": "-",
         "│": "|", "┃": "|"}


def ascii_spelling(ch: str) -> str:
    """The ASCII spelling of one character (see :data:`ASCII`)."""
    if ch in ASCII:
        return ASCII[ch]
    if ord(ch) < 128:
        return ch
    name = unicodedata.name(ch, "")
    if name.startswith("GREEK SMALL LETTER ") or name.startswith("GREEK CAPITAL LETTER "):
        word = name.split(" LETTER ", 1)[1].split()[0].lower()
        return word if "SMALL" in name else word.capitalize()
    if "SUPERSCRIPT" in name or "SUBSCRIPT" in name:
        base = unicodedata.normalize("NFKD", ch)
        if base.isascii():
            return ("^" if "SUPERSCRIPT" in name else "_") + base
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii() and not unicodedata.combining(c))
    return base or "?"


def ascii_text(text: str) -> str:
    """``text`` with every character in its ASCII spelling (:func:`ascii_spelling`)."""
    return text if text.isascii() else "".join(ascii_spelling(c) for c in text)


def _ascii_errors(exc):
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    return "".join(ascii_spelling(c) for c in text), exc.end


codecs.register_error("pyfed-ascii", _ascii_errors)


def _takes(stream, probe: str = "≤×±σ‖…") -> bool:
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        probe.encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def safe_output() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` take any text: a stream whose encoding cannot write
    pyfed's symbols is reconfigured to write their ASCII spellings (error handler
    ``"pyfed-ascii"``, see :func:`ascii_spelling`). Streams that take UTF-8, and streams that
    cannot be reconfigured (a test's capture buffer), are left alone."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name, None)
        if stream is None or _takes(stream):
            continue
        try:
            stream.reconfigure(errors="pyfed-ascii")
        except (AttributeError, ValueError, OSError):
            pass
