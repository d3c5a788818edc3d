"""The one Lean term grammar of pyfed: tokenizer and parser with source positions.

Both readers of Lean text use it: the drift check (:mod:`pyfed.lean.drift`, bodies of the
model's arithmetic definitions -> sympy) and the statement reader (:mod:`pyfed.statements`,
theorem statements -> :class:`pyfed.statements.Statement`). It reads the subset of Lean 4 term
syntax those texts use and builds a small syntax tree (:class:`Node`) whose every node knows its
line and column, so that anything outside the subset is reported as ``file:line:col`` with the
construct named, never skipped.

Grammar (Lean 4 precedences; application binds tightest)::

    term   := ∀ binders, term | ∃ binders, term | let x := term ; term | fun … (rejected)
            | term → term (25, right) | term ↔ term (20) | term ∨ term (30, right)
            | term ∧ term (35, right) | ¬ term (40)
            | term (= ≠ ≤ < ≥ > ∈) term (50) | term (+ -) term (65) | term (* / %) term (70)
            | term • term (73) | term ^ term (75, right) | - term (75) | application
    app    := atom atom* | ∑ x ∈ s, term:67 | ∑ x, term:67
    atom   := numeral | identifier | (term) | (term : type) | ↑atom | ‖term‖ | atom⁻¹
            | ⟨…⟩ / ∫ / |…| / λ (rejected with their names)
    binder := (x y : T) | {x : T} | ⦃x : T⦄ | [C x] | [h : C x] | x | x : T (last ∀ binder)

Numerals are exact (:class:`fractions.Fraction`; ``0.5`` and ``1e-3`` are Lean scientific
literals, exact rationals). Columns are 1-based, lines 1-based.

Public API: :func:`tokenize`, :func:`parse_term`, :class:`Node`, :class:`Token`,
:class:`LeanSyntaxError`, :func:`strip_comments`.

Why one module: a tokenizer and a recursive-descent parser of one grammar; the parser's methods call
each other by precedence level, and every node and error carries the tokenizer's positions.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError
from ..resources import MAX_EXPONENT, MAX_NUMERAL_DIGITS, MAX_TERM_DEPTH, HugeNumber, check_numeral, check_power

__all__ = ["Token", "Node", "Binder", "LeanSyntaxError", "LeanTypeError", "LeanError", "canonical_name", "is_name",
           "lean_refusal", "IDENT", "tokenize", "parse_term", "parse_binders",
           "strip_comments", "Parser", "position_of", "TYPES", "cut_at_assign"]

#: Names of the number types the grammar knows (casts ``(x : ℝ)``).
TYPES = {"ℝ", "ℚ", "ℕ", "ℤ"}


class LeanSyntaxError(InputError):
    """A Lean text outside the supported subset, with its position.

    Attributes: ``path`` (file name or ``"<text>"``), ``line``, ``col`` (1-based), ``construct``
    (what was found), ``supported`` (what would be accepted there). ``str(err)`` is
    ``path:line:col: unsupported <construct>: <detail>; supported: <supported>``.
    """

    def __init__(self, construct: str, detail: str = "", *, line: int = 0, col: int = 0, path: str = "<text>",
                 supported: str = ""):
        self.construct, self.detail, self.line, self.col, self.path = construct, detail, line, col, path
        self.supported = supported
        msg = f"{path}:{line}:{col}: unsupported {construct}"
        if detail:
            msg += f": {detail}"
        if supported:
            msg += f"; supported: {supported}"
        self.message = msg
        ValueError.__init__(self, msg)
        self.argument = path
        self.reason = msg

    def __str__(self):
        return self.message

    def located(self, path: str, line_offset: int = 0, col_offset: int = 0) -> "LeanSyntaxError":
        """The same error re-anchored in ``path`` (positions shifted for a text cut from a file)."""
        col = self.col + (col_offset if self.line == 1 else 0)
        return LeanSyntaxError(self.construct, self.detail, line=self.line + line_offset, col=col, path=path,
                               supported=self.supported)


class LeanTypeError(LeanSyntaxError):
    """A term Lean itself rejects (a type mismatch, an operation the types do not have), not a
    construct outside pyfed's subset: ``str(err)`` is ``path:line:col: <construct>: <detail>``."""

    def __init__(self, construct: str, detail: str = "", *, line: int = 0, col: int = 0, path: str = "<text>"):
        super().__init__(construct, detail, line=line, col=col, path=path)
        self.message = self.reason = f"{path}:{line}:{col}: {construct}" + (f": {detail}" if detail else "")
        self.args = (self.message,)

    def located(self, path: str, line_offset: int = 0, col_offset: int = 0) -> "LeanTypeError":
        col = self.col + (col_offset if self.line == 1 else 0)
        return type(self)(self.construct, self.detail, line=self.line + line_offset, col=col, path=path)


class LeanError(LeanTypeError):
    """What Lean 4 itself refuses, in Lean's words (``tabs are not allowed; please configure your
    editor to expand them``, ``unknown identifier 'w'``, ``'X' has already been declared``): not a
    construct outside pyfed's subset, so no list of what is supported. ``str(err)`` is
    ``path:line:col: <message>``."""

    def __init__(self, construct: str, detail: str = "", *, line: int = 0, col: int = 0, path: str = "<text>"):
        super().__init__(construct, detail, line=line, col=col, path=path)
        self.message = self.reason = f"{path}:{line}:{col}: {construct}" + (f"; {detail}" if detail else "")
        self.args = (self.message,)


# --------------------------------------------------------------------------- comments

def strip_comments(text: str) -> str:
    """``text`` with Lean comments (``-- …``, nested ``/- … -/``, doc comments) replaced by
    spaces, keeping every newline, so positions in the result equal positions in ``text``."""
    out = list(text)
    i, n, depth = 0, len(text), 0
    in_string = False
    while i < n:
        if depth == 0 and not in_string and text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if not in_string and text.startswith("/-", i):
            depth += 1
            out[i] = out[i + 1] = " "
            i += 2
            continue
        if depth > 0:
            if text.startswith("-/", i):
                depth -= 1
                out[i] = out[i + 1] = " "
                i += 2
                continue
            if text[i] != "\n":
                out[i] = " "
            i += 1
            continue
        if text[i] == '"':
            in_string = not in_string
        i += 1
    return "".join(out)


# --------------------------------------------------------------------------- tokens

@dataclass(frozen=True)
class Token:
    """One token: ``kind`` (``num``, ``ident``, ``op``), its text and 1-based line/column."""

    kind: str
    text: str
    line: int
    col: int
    start: int = 0      # offset of the token in the tokenized text
    end: int = 0


#: Lean 4's identifier characters (``Lean.isLetterLike``, ``isSubScriptAlnum``, ``isIdFirst``,
#: ``isIdRest`` of Lean's ``Init/Meta/Defs.lean``): ASCII letters, ``_``, Greek except λ Π Σ, Coptic,
#: polytonic Greek, the letterlike block (ℝ ℕ …), mathematical script letters, Latin-1 and Latin
#: Extended-A letters; then also ASCII digits, ``'`` ``!`` ``?`` and subscripts. Lean's digits are
#: ASCII only (a fullwidth ``１`` is not a digit).
_LETTERLIKE = ("\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9\u03ca-\u03fb"
               "\u1f00-\u1ffe\u2100-\u214f\U0001d49c-\U0001d59f\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017f")
_SUBSCRIPT = "\u2080-\u209c\u1d62-\u1d6a\u2c7c"
ID_FIRST = f"A-Za-z_{_LETTERLIKE}"
ID_REST = f"A-Za-z0-9_'!?{_LETTERLIKE}{_SUBSCRIPT}"
#: One component of a name: a plain identifier, or any text between guillemets (``«my lemma»``).
_COMPONENT = f"(?:[{ID_FIRST}][{ID_REST}]*|«[^»\\n]*»)"
#: A (dotted) Lean name, optionally followed by a numeric projection (``h.1``).
IDENT = f"{_COMPONENT}(?:\\.{_COMPONENT})*"

_TOKEN = re.compile(rf"""
    (?P<ws>[ \n]+|\r\n)
  | (?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)
  | (?P<ident>{IDENT}(?:\.[0-9]+)?)
  | (?P<empty>∅)
  | (?P<op>⁻¹|≤ᵐ|=ᵐ|:=|=>|->|<=|>=|!=|\.\.|[-+*/^(),:↑‖∑∏∈∉≤≥<>=≠∧∨¬→↔∀∃{{}}\[\]⦃⦄⟨⟩|•∘·%;∫∂λ↦⋆@#$&~`'\\!?.⟪⟫√])
""", re.VERBOSE)


def canonical_name(written: str) -> str:
    """A name as Lean prints it: each ``«x»`` component whose text is a plain identifier loses its
    guillemets (``«x»`` and ``x`` are the same name), the others keep them (``«my lemma»``)."""
    def one(comp: str) -> str:
        if comp.startswith("«") and comp.endswith("»") and re.fullmatch(f"[{ID_FIRST}][{ID_REST}]*", comp[1:-1]):
            return comp[1:-1]
        return comp
    return ".".join(one(c) for c in re.findall(f"{_COMPONENT}|[0-9]+", written))


def is_name(text: str) -> bool:
    """Whether ``text`` is a Lean name (dotted identifiers, guillemet components allowed)."""
    return re.fullmatch(IDENT, text) is not None


def lean_refusal(text: str, pos: int):
    """``(construct, detail)`` when the character at ``text[pos]`` is one Lean 4 itself refuses in
    source text outside comments -- a tab, an isolated carriage return, an invisible character
    (Unicode format or control characters such as the zero-width space, and spaces other than
    U+0020), a non-ASCII digit (fullwidth ``１``) -- else None. The wording is Lean's where Lean has
    one (``tabs are not allowed; please configure your editor to expand them``)."""
    ch = text[pos]
    if ch == "\t":
        return "tabs are not allowed", "please configure your editor to expand them"
    if ch == "\r" and not text.startswith("\r\n", pos):
        return "isolated carriage returns are not allowed", ""
    if ch in "\n\r ":
        return None
    cat = unicodedata.category(ch)
    name = unicodedata.name(ch, "")
    code = f"U+{ord(ch):04X}" + (f" {name}" if name else "")
    if cat in ("Cf", "Cc", "Zs", "Zl", "Zp", "Co", "Cn") :
        return (f"unexpected invisible character {code}",
                "Lean refuses it outside comments, in a name too (it is no identifier character): delete it")
    if cat == "Nd" and not ch.isascii():
        return (f"unexpected character {ch!r} ({code})",
                f"Lean's numerals are written with the ASCII digits 0-9 (write {unicodedata.digit(ch)})")
    return None


#: ASCII spellings Lean also accepts, mapped to the Unicode token.
_ASCII = {"<=": "≤", ">=": "≥", "!=": "≠", "->": "→"}


def position_of(text: str, offset: int) -> tuple[int, int]:
    """(line, col), 1-based, of character ``offset`` of ``text``."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def tokenize(text: str, *, line: int = 1, col: int = 1, path: str = "<text>") -> list[Token]:
    """Tokens of a Lean term (comments must already be stripped). ``line``/``col``: the position
    of ``text[0]`` in its file. Raises :class:`LeanSyntaxError` at an unknown character."""
    out, pos = [], 0
    cur_line, line_start = line, -col + 1   # column of offset k on the first line: k - line_start + 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            c = pos - line_start + 1
            refused = lean_refusal(text, pos)
            if refused is not None:      # Lean itself refuses it: Lean's words, not "unsupported"
                raise LeanError(*refused, line=cur_line, col=c, path=path)
            raise LeanSyntaxError(f"character {text[pos]!r}", line=cur_line, col=c, path=path,
                                  supported="Lean terms of the arithmetic subset (see pyfed.lean.terms)")
        if m.lastgroup != "ws":
            tok = m.group()
            if m.lastgroup == "ident" and "«" in tok:
                tok = canonical_name(tok)
            kind = "ident" if m.lastgroup == "empty" else m.lastgroup      # ∅: the empty collection, a name
            out.append(Token(kind, _ASCII.get(tok, tok), cur_line, pos - line_start + 1, m.start(), m.end()))
        else:
            nl = m.group().count("\n")
            if nl:
                cur_line += nl
                line_start = m.start() + m.group().rfind("\n") + 1
        pos = m.end()
    return out


# --------------------------------------------------------------------------- syntax tree

@dataclass
class Node:
    """A node of the syntax tree.

    kind : ``num`` (value: Fraction), ``ident`` (value: name), ``app`` (args: head, arguments…),
        ``binop`` (value: operator; args: left, right), ``neg``, ``inv``, ``not`` (args: operand),
        ``cast`` (value: type name; args: operand), ``coe`` (↑x), ``norm`` (‖x‖),
        ``sum`` (value: bound variable; args: range or None, body), ``forall`` / ``exists``
        (value: list of :class:`Binder`; args: body), ``let`` (value: name; args: value, body),
        ``paren`` is not kept (parentheses only group).
    line, col : 1-based position of the node's first token.
    text : the node's source text (tokens joined by single spaces), for messages and keys.
    """

    kind: str
    value: object = None
    args: list = field(default_factory=list)
    line: int = 0
    col: int = 0
    text: str = ""
    ty: str | None = None      # kind assigned by the statement reader's elaboration (nat, real, …)
    depth: int = 1             # levels of the tree below and including this node (as parsed)

    def __post_init__(self):
        self.depth = 1 + max((a.depth for a in self.args if isinstance(a, Node)), default=0)

    @property
    def pos(self) -> tuple[int, int]:
        return (self.line, self.col)

    def head_name(self) -> str | None:
        """Name of the head identifier of an application or identifier, else None."""
        if self.kind == "ident":
            return self.value
        if self.kind == "app" and self.args and self.args[0].kind == "ident":
            return self.args[0].value
        return None

    def walk(self):
        """Every node of the tree, pre-order."""
        yield self
        if self.kind in ("forall", "exists"):
            for b in self.value:
                if b.type is not None:
                    yield from b.type.walk()
        for a in self.args:
            if isinstance(a, Node):
                yield from a.walk()

    def __repr__(self):  # compact, for debugging and tests
        if self.kind == "num":
            return f"{self.value}"
        if self.kind == "ident":
            return str(self.value)
        if self.kind == "binop":
            return f"({self.args[0]!r} {self.value} {self.args[1]!r})"
        if self.kind == "app":
            return "(" + " ".join(repr(a) for a in self.args) + ")"
        return f"{self.kind}[{self.value}]({', '.join(repr(a) for a in self.args)})"


@dataclass
class Binder:
    """One bound name: ``name`` (``"_"`` for an anonymous instance binder), ``type`` (Node or None
    for ``∀ x,``), ``style`` (``explicit`` ``()``, ``implicit`` ``{}``, ``strict`` ``⦃⦄``,
    ``instance`` ``[]``, ``bare``), position."""

    name: str
    type: Node | None
    style: str
    line: int
    col: int
    pred: tuple | None = None     # binder predicate (op, bound) of `∀ x < n, …`


#: Binary operators: token -> (left binding power, right binding power for the operand).
_BINARY = {
    "→": (25, 25), "↔": (20, 21), "∨": (30, 30), "∧": (35, 35),
    "=": (50, 51), "≠": (50, 51), "≤": (50, 51), "<": (50, 51), "≥": (50, 51), ">": (50, 51),
    "∈": (50, 51), "∉": (50, 51), "≤ᵐ": (50, 51), "=ᵐ": (50, 51),
    "+": (65, 66), "-": (65, 66), "*": (70, 71), "/": (70, 71), "%": (70, 71),
    "•": (73, 73), "^": (75, 75), "∘": (90, 90),
}

_RIGHT_ASSOC = {"→", "∧", "∨", "^", "•"}

#: What the grammar reads (named in syntax errors).
SUPPORTED_SYNTAX = ("numerals, names, applications, + - * / ^ ⁻¹, comparisons, ∧ → ∀, (x : ℝ) casts, ↑x, ‖…‖, "
                    "∑ r ∈ Finset.range T, …, let")

#: Tokens that are recognisably Lean but outside the subset, with their names.
_REJECTED_ATOMS = {
    "⟨": "anonymous constructor `⟨…⟩`", "∏": "product `∏`",
    "match": "`match`", "·": "`·` placeholder", "∂": "`∂`",
    "√": "`√` (write `Real.sqrt`)", "by": "a tactic block inside a term", "∃": None,
}


class Parser:
    """Pratt parser over a token list (see the module docstring for the grammar).

    ``path`` names the file in errors. ``stop`` is a set of token texts that end a term at
    bracket depth 0 (e.g. ``":="`` for a declaration's type).
    """

    def __init__(self, tokens: list[Token], *, path: str = "<text>", stop=(), src: str | None = None):
        self.toks = tokens
        self.i = 0
        self.path = path
        self.stop = set(stop)
        self.src = src          # the tokenized text: node texts are its slices
        self.nesting = 0        # terms being parsed inside one another (bounded by MAX_TERM_DEPTH)

    # ---- token access
    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *texts) -> bool:
        t = self.peek()
        return t is not None and t.text in texts

    def take(self, expected: str | None = None) -> Token:
        tok = self.peek()
        if tok is None:
            last = self.toks[-1] if self.toks else Token("op", "", 1, 1)
            self.error("end of term", f"expected {expected!r}" if expected else "the term ends too early",
                       last, supported=f"{expected!r}" if expected else "")
        if expected is not None and tok.text != expected:
            self.error(f"token {tok.text!r}", f"expected {expected!r}", tok, supported=repr(expected))
        self.i += 1
        return tok

    def error(self, construct, detail="", tok: Token | Node | None = None, supported=""):
        line, col = (tok.line, tok.col) if tok is not None else (0, 0)
        raise LeanSyntaxError(construct, detail, line=line, col=col, path=self.path,
                              supported=supported or SUPPORTED_SYNTAX)

    def _text(self, start: int) -> str:
        toks = self.toks[start:self.i]
        if not toks:
            return ""
        if self.src is not None:
            return " ".join(self.src[toks[0].start:toks[-1].end].split())
        return " ".join(t.text for t in toks)

    def node(self, kind, start, value=None, args=None) -> Node:
        t = self.toks[start] if start < len(self.toks) else self.toks[-1]
        n = Node(kind, value, list(args or []), t.line, t.col, self._text(start))
        if n.depth > MAX_TERM_DEPTH:
            self._too_deep(t, n.depth)
        return n

    def _too_deep(self, tok, depth) -> None:
        self.error(f"term nested {depth} levels deep", f"above the limit of {MAX_TERM_DEPTH} levels "
                   "(pyfed.resources.MAX_TERM_DEPTH; a sum of n terms is n levels, n nested parentheses n levels)",
                   tok, supported=f"terms at most {MAX_TERM_DEPTH} levels deep: split the term with a def or a let")

    # ---- entry points
    def parse_all(self) -> Node:
        """Parse the whole token list as one term (trailing tokens are an error)."""
        e = self.term(0)
        tok = self.peek()
        if tok is not None:
            self.error(f"token {tok.text!r}", "unexpected after a complete term", tok,
                       supported="a single Lean term of the arithmetic subset")
        return e

    def ends(self, tok: Token | None) -> bool:
        return tok is None or tok.text in self.stop or tok.text in (")", "}", "]", "⦄", ",", "‖", ":=", ";", "⟩",
                                                                    "then", "else", "∂", "⟫", "=>", "↦")

    def _with_stop(self, extra, fn):
        """``fn()`` with the tokens ``extra`` also ending terms (e.g. ``|`` inside ``μ[f | m]``)."""
        saved = self.stop
        self.stop = set(saved) | set(extra)
        try:
            return fn()
        finally:
            self.stop = saved

    # ---- Pratt loop
    def term(self, rbp: int = 0) -> Node:
        self.nesting += 1
        try:
            if self.nesting > MAX_TERM_DEPTH:     # refused before the recursion goes deeper
                self._too_deep(self.peek() or self.toks[-1], self.nesting)
            return self._term(rbp)
        finally:
            self.nesting -= 1

    def _term(self, rbp: int) -> Node:
        start = self.i
        left = self.prefix()
        while True:
            tok = self.peek()
            if self.ends(tok):
                break
            if tok.text == ":":
                break
            if tok.text in _BINARY:
                lbp, _ = _BINARY[tok.text]
                if lbp <= rbp:
                    break
                self.take()
                measure = None
                if tok.text in ("≤ᵐ", "=ᵐ"):
                    # `f ≤ᵐ[μ] g`: almost everywhere with respect to μ
                    self.take("[")
                    measure = self.term(0)
                    self.take("]")
                # right-associative operators parse their right operand at lbp - 1
                right = self.term(lbp - 1 if tok.text in _RIGHT_ASSOC else lbp)
                left = self.node("binop", start, tok.text, [left, right] + ([measure] if measure is not None else []))
                if tok.text == "^":
                    self._check_power(left)
                continue
            break
        return left

    def prefix(self) -> Node:
        start = self.i
        tok = self.peek()
        if tok is None:
            self.take()           # raises "end of term"
        t = tok.text
        if t == "∀" or t == "∃":
            self.take()
            binders = self.binders(until=",")
            self.take(",")
            body = self.term(0)
            preds = [b for b in binders if b.pred is not None]
            for b in reversed(preds):
                # `∀ x < n, P` is `∀ x, x < n → P`; `∃ x < n, P` is `∃ x, x < n ∧ P`
                op, bound = b.pred
                var = Node("ident", b.name, [], b.line, b.col, b.name)
                cond = Node("binop", op, [var, bound], b.line, b.col, f"{b.name} {op} {bound.text}")
                body = Node("binop", "→" if t == "∀" else "∧", [cond, body], b.line, b.col,
                            f"{cond.text} {'→' if t == '∀' else '∧'} {body.text}")
            return self.node("forall" if t == "∀" else "exists", start, binders, [body])
        if t == "let":
            return self.let_term()
        if t in ("fun", "λ"):
            self.take()
            binders = self.binders(until="=>")
            if not binders:
                self.error("`fun` without a bound name", "", tok, supported="fun x => body")
            if self.at("↦"):
                self.take("↦")
            else:
                self.take("=>")
            body = self.term(0)
            return self.node("fun", start, binders, [body])
        if t == "∫":
            self.take()
            var = self.take()
            if var.kind != "ident":
                self.error(f"token {var.text!r}", "expected the bound variable of ∫", var,
                           supported="∫ ω, f ω ∂μ")
            if self.at(":"):
                self.take(":")
                self.term(51)
            self.take(",")
            body = self.term(0)
            self.take("∂")
            measure = self.atom()
            return self.node("integral", start, var.text, [body, measure])
        if t == "if":
            self.take()
            cond = self.term(0)
            self.take("then")
            a = self.term(0)
            self.take("else")
            b = self.term(0)
            return self.node("ite", start, None, [cond, a, b])
        if t == "¬":
            self.take()
            return self.node("not", start, None, [self.term(40)])
        if t == "-":
            self.take()
            return self.node("neg", start, None, [self.term(74)])     # -x^2 = -(x^2), -a*b = (-a)*b
        if t == "∑":
            return self.big_sum()
        return self.application()

    def let_term(self) -> Node:
        start = self.i
        let_tok = self.take("let")
        name = self.take()
        if name.kind != "ident":
            self.error(f"token {name.text!r}", "expected a name after `let`", name, supported="let x := value")
        if self.at(":"):
            self.error("typed `let`", "write `let x := value`", self.peek(), supported="let x := value")
        self.take(":=")
        # the value ends at `;` or at the end of its line (outside brackets), as Lean's layout does
        j, depth = self.i, 0
        first = self.peek()
        if first is None:
            self.take()
        line = let_tok.line
        while j < len(self.toks):
            tk = self.toks[j]
            if depth == 0 and (tk.text == ";" or (tk.line > line and j > self.i)):
                break
            if tk.text in ("(", "[", "{", "⦃", "⟨"):
                depth += 1
            elif tk.text in (")", "]", "}", "⦄", "⟩"):
                depth -= 1
                if depth < 0:
                    break
            if depth > 0 and tk.line > line:
                line = tk.line
            j += 1
        sub = Parser(self.toks[self.i:j], path=self.path, src=self.src)
        value = sub.parse_all()
        self.i = j
        if self.at(";"):
            self.take(";")
        body = self.term(0)
        return self.node("let", start, name.text, [value, body])

    def big_sum(self) -> Node:
        start = self.i
        self.take("∑")
        var = self.take()
        if var.kind != "ident":
            self.error(f"token {var.text!r}", "expected the bound variable of ∑", var,
                       supported="∑ r ∈ Finset.range T, body  or  ∑ i, body")
        rng = None
        if self.at(":"):
            self.take(":")
            self.term(51)       # the bound variable's type is not needed
        if self.at("∈"):
            self.take("∈")
            rng = self.term(51)
        elif self.at("in"):
            self.error("`∑ x in s, …` (the older Mathlib spelling)", "Mathlib at the pinned commit writes "
                       "`∑ x ∈ s, …`", self.peek(), supported="∑ r ∈ Finset.range T, body  or  ∑ i, body")
        elif self.at("<"):
            self.error("∑ with a bound `<`", "", self.peek(), supported="∑ r ∈ Finset.range T, body  or  ∑ i, body")
        self.take(",")
        body = self.term(66)     # Lean: the body of ∑ is a term at precedence 67
        return self.node("sum", start, var.text, [rng, body])

    def starts_atom(self, tok: Token | None) -> bool:
        if tok is None or self.ends(tok):
            return False
        if tok.kind in ("num", "ident"):
            return tok.text not in ("let", "fun", "then", "else", "with", "at", "from", "by", "do", "if", "in")
        if tok.text == "|" and "|" in self.stop:
            return False
        return tok.text in ("(", "↑", "‖", "⟨", "|", "⟪", "√", "·")

    def application(self) -> Node:
        start = self.i
        head = self.atom()
        if head.kind == "ident" and head.value in ("Type", "Sort"):
            # universe annotations: Type u, Type*, Type _
            if self.at("*"):
                self.take()
            elif self.peek() is not None and self.peek().kind in ("ident", "num") and not self.ends(self.peek()):
                self.take()
            return self.node("ident", start, "Type")
        args = []
        while self.starts_atom(self.peek()):
            args.append(self.atom())
        if not args:
            return head
        return self.node("app", start, None, [head] + args)

    def atom(self) -> Node:
        start = self.i
        tok = self.take()
        t = tok.text
        if tok.kind == "num":
            try:
                value = _numeral(t)
            except HugeNumber as exc:
                self.error(f"numeral `{_clip(t)}`", exc.reason, tok, supported="numerals of at most "
                           f"{MAX_NUMERAL_DIGITS} digits")
            node = self.node("num", start, value)
        elif tok.kind == "ident":
            if t in _REJECTED_ATOMS and _REJECTED_ATOMS[t]:
                self.error(_REJECTED_ATOMS[t], "", tok)
            node = self.node("ident", start, t)
            nxt = self.peek()
            if nxt is not None and nxt.text == "[" and nxt.start == tok.end:
                # `μ[f | m]` (conditional expectation) or `StronglyMeasurable[m] f` (an explicit
                # σ-algebra): a bracket right after a name, without a space
                self.take("[")
                inner = self._with_stop({"|"}, lambda: self.term(0))
                if self.at("|"):
                    self.take("|")
                    sigma = self.term(0)
                    self.take("]")
                    node = self.node("condexp", start, None, [node, inner, sigma])
                else:
                    self.take("]")
                    node = self.node("subscript", start, t, [inner])
        elif t == "↑":
            inner = self.atom()
            node = self.node("coe", start, None, [inner])
        elif t == "‖":
            inner = self.term(0)
            self.take("‖")
            node = self.node("norm", start, None, [inner])
        elif t == "|":
            inner = self._with_stop({"|"}, lambda: self.term(0))
            self.take("|")
            node = self.node("abs", start, None, [inner])
        elif t == "⟪":
            a = self.term(0)
            self.take(",")
            b = self.term(0)
            close = self.take("⟫")
            nxt = self.peek()
            if nxt is not None and nxt.kind == "ident" and nxt.text == "_ℝ" and nxt.start == close.end:
                self.take()
            field_tok = Token("ident", "ℝ", tok.line, tok.col)
            head = Node("ident", "inner", [], tok.line, tok.col, "inner")
            node = self.node("app", start, None, [head, Node("ident", "ℝ", [], field_tok.line, field_tok.col, "ℝ"),
                                                  a, b])
        elif t == "(":
            if self.at(")"):
                self.error("unit `()`", "", tok)
            inner = self.term(0)
            if self.at(":"):
                self.take(":")
                ty = self.term(0)
                self.take(")")
                node = self.node("cast", start, ty.text, [inner, ty])
            else:
                self.take(")")
                node = inner
                # keep the parenthesised span's position and text
                node = Node(inner.kind, inner.value, inner.args, tok.line, tok.col, self._text(start))
        elif t == "[":
            items = []
            while not self.at("]"):
                items.append(self.term(0))
                if not self.at("]"):
                    self.take(",")
            self.take("]")
            node = self.node("list", start, None, items)
        elif t in _REJECTED_ATOMS and _REJECTED_ATOMS[t]:
            self.error(_REJECTED_ATOMS[t], "", tok)
        else:
            self.error(f"token {t!r}", "expected a number, a name or a parenthesised term", tok,
                       supported="numerals, names, ( … ), (x : ℝ), ↑x, ‖…‖, ∑")
        while True:
            if self.at("⁻¹"):
                self.take()
                node = self.node("inv", start, None, [node])
            elif self.at(".") and self.peek().start == self.toks[self.i - 1].end and self.peek(1) is not None \
                    and self.peek(1).kind == "ident" and self.peek(1).start == self.peek().end:
                # a projection `(e).card`
                self.take(".")
                fld = self.take()
                node = self.node("proj", start, fld.text, [node])
            else:
                return node

    def _check_power(self, node: Node) -> None:
        """Refuse ``a ^ n`` with a numeral exponent whose exact value would be huge
        (:func:`pyfed.resources.check_power`), at read time, naming the term and its size."""
        base, exponent = (_static_value(a) for a in node.args)
        if exponent is None:
            return
        try:
            check_power(base, math.floor(abs(exponent)))
        except HugeNumber as exc:
            self.error(f"power `{_clip(node.text)}`", exc.reason, node,
                       supported=f"powers with at most {MAX_NUMERAL_DIGITS} digits and numeral exponents up to "
                                 f"{MAX_EXPONENT}")

    # ---- binders
    def binders(self, until: str | None = None) -> list[Binder]:
        """Binder groups up to ``until`` (not consumed) or up to a token that cannot start one.
        A bare ``x : T`` (no brackets) binds the names before ``:`` with the type up to ``until``."""
        out: list[Binder] = []
        while True:
            tok = self.peek()
            if tok is None or (until is not None and tok.text == until) or tok.text in (":", ":="):
                if tok is not None and tok.text == ":" and until in (",", "=>"):
                    # ∀ x y : T, body  /  fun t : ℝ => body (the type up to `=>` or `↦`)
                    self.take(":")
                    ty = self.term(0)
                    names = [b for b in out if b.style == "bare" and b.type is None]
                    if not names:
                        self.error("binder", "`:` without a name", tok)
                    for b in names:
                        b.type = ty
                    continue
                return out
            if tok.text in ("(", "{", "⦃", "["):
                out.extend(self.binder_group())
            elif tok.kind == "ident":
                self.take()
                out.append(Binder(tok.text, None, "bare", tok.line, tok.col))
            elif tok.text in ("<", "≤", ">", "≥", "∈") and out and out[-1].style == "bare" and until == ",":
                # a binder predicate `∀ x < n, P` (read as `∀ x, x < n → P`)
                op = self.take().text
                bound = self.term(51)
                for b in out:
                    if b.style == "bare" and b.pred is None and b.type is None:
                        b.pred = (op, bound)
                return out
            elif tok.text in ("<", "≤", ">", "≥", "∈"):
                self.error(f"binder predicate `∀ x {tok.text} …`", "", tok,
                           supported="∀ x < n, …  (bare names before the predicate)")
            else:
                return out

    def binder_group(self) -> list[Binder]:
        open_tok = self.take()
        close = {"(": ")", "{": "}", "⦃": "⦄", "[": "]"}[open_tok.text]
        style = {"(": "explicit", "{": "implicit", "⦃": "strict", "[": "instance"}[open_tok.text]
        if style == "instance":
            # [C x] or [name : C x]
            if self.peek(1) is not None and self.peek(1).text == ":" and self.peek().kind == "ident":
                name = self.take().text
                self.take(":")
            else:
                name = "_"
            ty = self.term(0)
            self.take(close)
            return [Binder(name, ty, style, open_tok.line, open_tok.col)]
        names = []
        while self.peek() is not None and self.peek().kind == "ident" and self.peek().text not in (":",):
            t = self.take()
            names.append(t)
        if not names:
            self.error("binder", "expected names in a binder group", self.peek() or open_tok,
                       supported="(x y : T), {x : T}, [C x]")
        if self.at(close):
            self.take(close)
            return [Binder(t.text, None, style, t.line, t.col) for t in names]
        self.take(":")
        ty = self.term(0)
        if self.at(":="):
            self.error("default argument `(x : T := v)`", "", self.peek())
        self.take(close)
        return [Binder(t.text, ty, style, t.line, t.col) for t in names]


def _numeral(text: str) -> Fraction:
    """Exact value of a Lean numeral (``3``, ``0.5``, ``1e-3``, ``2.5e2``). Raises
    :class:`pyfed.resources.HugeNumber` when it has more than MAX_NUMERAL_DIGITS digits."""
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?", text)
    whole, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "0"
    if len(exp) > 20:
        raise HugeNumber(math.inf, f"its exponent {_clip(exp)} has {len(exp)} digits")
    exp = int(exp)
    check_numeral(whole, frac, exp)
    v = Fraction(int(whole + frac), 10 ** len(frac))
    return v * Fraction(10) ** exp


def _clip(text: str, width: int = 40) -> str:
    """``text`` for a message: itself, or its first ``width`` characters and ``…``."""
    text = str(text)
    return text if len(text) <= width else text[:width] + "…"


def _static_value(node: Node):
    """The exact value (as a rational: the size of the term, whatever Lean's type) of a term made
    of numerals, + - * /, ^ and casts only (each power already checked by the parser), else None."""
    if node.kind == "num":
        return node.value
    if node.kind == "cast" and node.args:
        return _static_value(node.args[0])
    if node.kind == "neg":
        v = _static_value(node.args[0])
        return None if v is None else -v
    if node.kind == "binop" and node.value in ("+", "-", "*", "/", "^"):
        a, b = (_static_value(x) for x in node.args)
        if a is None or b is None:
            return None
        if node.value == "+":
            return a + b
        if node.value == "-":
            return a - b
        if node.value == "*":
            return a * b
        if node.value == "/":
            return a / b if b else None
        if b.denominator != 1 or b < 0 or (a == 0 and b == 0):
            return None
        return a ** int(b)
    return None


def parse_term(text: str, *, path: str = "<text>", line: int = 1, col: int = 1) -> Node:
    """Parse one Lean term (comments already stripped or absent). Positions are reported
    relative to ``line``/``col`` (the position of ``text[0]`` in ``path``)."""
    toks = tokenize(text, line=line, col=col, path=path)
    if not toks:
        raise LeanSyntaxError("empty term", line=line, col=col, path=path)
    return Parser(toks, path=path, src=text).parse_all()


def parse_binders(text: str, *, path: str = "<text>", line: int = 1, col: int = 1) -> list[Binder]:
    """Parse a binder list such as ``{d N : ℕ} (P : Problem d N) (h : 0 < ηl)``."""
    toks = tokenize(text, line=line, col=col, path=path)
    p = Parser(toks, path=path, src=text)
    out = p.binders()
    if p.peek() is not None:
        tok = p.peek()
        p.error(f"token {tok.text!r}", "in a binder list", tok, supported="(x y : T), {x : T}, [C x]")
    return out


def cut_at_assign(text: str) -> tuple[str, str | None]:
    """(header, body) split at the ``:=`` that starts the declaration's body: the first one
    outside brackets that does not belong to a ``let x := v`` of the statement itself (body None
    when absent)."""
    depth = 0
    pairs = {"(": 1, "[": 1, "{": 1, "⦃": 1, "⟨": 1, ")": -1, "]": -1, "}": -1, "⦄": -1, "⟩": -1}
    lets: dict = {}          # depth -> `let`s whose `:=` is still to come
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in pairs:
            depth += pairs[ch]
        elif text.startswith("let", i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.'")) \
                and (i + 3 == len(text) or not (text[i + 3].isalnum() or text[i + 3] in "_'")):
            lets[depth] = lets.get(depth, 0) + 1
        elif text.startswith(":=", i):
            if lets.get(depth):
                lets[depth] -= 1
            elif depth == 0:
                return text[:i], text[i + 2:]
            i += 2
            continue
        i += 1
    return text, None
