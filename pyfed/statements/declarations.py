"""Reading a Lean file's commands: ``import``, ``namespace``/``section``/``end``, ``open`` (also
``open … in``), ``variable``, ``def`` and ``theorem`` (:func:`scan_declarations`), and Lean's
name resolution over them (:func:`resolve_name`). Elaboration of the terms is
:mod:`pyfed.statements.elaborate`; the statement builders are :mod:`pyfed.models.scaffold.reader`
and :mod:`pyfed.statements.elaboration`."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..lean import terms
from ..lean.terms import LeanError, LeanSyntaxError, Node, Parser
from . import model
from .vocabulary import model_declarations

__all__ = ["push_lets", "ReaderError", "Declarations", "Context", "LeanNameError", "resolve_name", "unknown_identifier",
           "scan_declarations", "header_tokens",
           "make_parser", "used_variables", "theorem_header", "run_namespace"]


class ReaderError(InputError):
    """One or more unsupported constructs in a Lean file: ``errors`` is the list of
    :class:`~pyfed.lean.terms.LeanSyntaxError` (each with path, line, column, construct and
    what is supported); ``str()`` lists them one per line."""

    def __init__(self, errors, path: str = "<text>"):
        self.errors = list(errors)
        msg = "\n".join(str(e) for e in self.errors)
        ValueError.__init__(self, msg)
        self.argument = path
        self.reason = msg

    def __str__(self):
        return self.reason


_COMMAND_RE = re.compile(
    r"(?m)^(?=(?:@\[|#|noncomputable\b|private\b|protected\b|def\b|abbrev\b|structure\b|"
    r"class\b|inductive\b|theorem\b|lemma\b|instance\b|example\b|end\b|namespace\b|section\b|"
    r"variable\b|open\b|universe\b|attribute\b|set_option\b|notation\b|macro\b|import\b|axiom\b|opaque\b))")


_DECL_RE = re.compile(
    r"\A(?:@\[[^\]]*\]\s*)?(?P<mods>(?:(?:noncomputable|private|protected|nonrec)\s+)*)"
    r"(?P<kind>def|abbrev|theorem|lemma|example|structure|class|inductive|instance|axiom|opaque)\b\s*"
    r"(?P<name>(?:«[^»\n]*»|[^\s({\[⦃:«])*)")


class _WithSrc(list):
    """A token list that remembers the text it was cut from (for node texts)."""

    def __init__(self, toks, src):
        super().__init__(toks)
        self.src = src


def make_parser(toks, path, stop=()):
    return Parser(list(toks), path=path, stop=stop, src=getattr(toks, "src", None))


@dataclass
class _Command:
    text: str          # comment-stripped text of the command
    offset: int        # offset of text[0] in the file
    line: int
    col: int


@dataclass
class Declarations:
    """What a file declares: ``theorems`` (name -> (namespace, command)), ``defs`` (name ->
    UserDef or the LeanSyntaxError met while reading it), ``imports``, ``errors`` (commands
    outside the subset, reported when the file is checked) and ``variables``."""

    path: str
    theorems: dict = field(default_factory=dict)
    defs: dict = field(default_factory=dict)
    imports: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    order: list = field(default_factory=list)
    contexts: dict = field(default_factory=dict)     # theorem name -> Context
    def_keys: dict = field(default_factory=dict)     # def full name -> key in ``defs``
    namespaces: set = field(default_factory=lambda: {model.NAMESPACE})


@dataclass(frozen=True)
class Context:
    """Where a declaration sits for Lean's name resolution: its namespace (``SCAFFOLD.Examples``,
    or ``""``) and the namespaces opened for it (``open X``, ``open X in``), outermost first."""

    namespace: str = ""
    opens: tuple = ()


class LeanNameError(LeanError):
    """A name Lean would reject: ``path:line:col: unknown identifier 'x' (…)`` or ``ambiguous …``."""

    def __init__(self, message: str, *, line: int, col: int, path: str, construct: str = ""):
        super().__init__(message, "", line=line, col=col, path=path)
        self.text, self.construct = message, construct or message

    def located(self, path: str, line_offset: int = 0, col_offset: int = 0) -> "LeanNameError":
        col = self.col + (col_offset if self.line == 1 else 0)
        return LeanNameError(self.text, line=self.line + line_offset, col=col, path=path, construct=self.construct)


def unknown_identifier(node, name: str, path: str, *, applied: bool = False, scope=()) -> LeanError | None:
    """Lean's ``unknown identifier 'w'`` at ``node`` for a name bound nowhere (not a binder, not a
    model definition, not a def of the file) that cannot be one of Mathlib's either: a plain name
    (no namespace) used as a value, or applied but at most two characters long (a typo, a binder
    left out). None for a name that may be Mathlib's (``Real.cos x``, ``deriv f x``): the caller
    then says the construct is outside pyfed's vocabulary and lists it. ``scope``: the names in
    scope, for a "did you mean" when one is close."""
    base = name.removeprefix("_root_.")
    if "." in base or (applied and len(base) > 2):
        return None
    near = difflib.get_close_matches(base, [str(n) for n in scope], n=1, cutoff=0.6)
    return LeanError(f"unknown identifier '{name}'", f"did you mean `{near[0]}`?" if near else "",
                     line=node.line, col=node.col, path=path)


def _model_hint(name: str, vocab=model) -> str:
    ns = vocab.NAMESPACE
    return f"the model's definitions live in namespace {ns}: add `open {ns}` or write {ns}.{name}"


def resolve_name(written: str, ctx: Context, decls: "Declarations", node=None, path: str = "<text>", vocab=None):
    """Resolve ``written`` as Lean 4 does: ``("model", name)`` for a definition of the model
    (namespace SCAFFOLD), ``("def", key)`` for a def of the file (``key`` into ``decls.defs``),
    or None for a name that is neither (a binder, a Mathlib name: the caller decides).

    Order (Lean's ``resolveGlobalName``): the enclosing namespaces, innermost first (a def of
    the current namespace shadows the model's definition of the same name); then the root name
    together with the opened namespaces, where two different hits are ambiguous. ``_root_.x``
    skips the namespaces. Raises :class:`LeanNameError` (at ``node``'s position) for a model
    name that is not in scope (no ``open SCAFFOLD``, not qualified) and for an ambiguous name.

    ``vocab``: the model's vocabulary, any object with ``NAMESPACE`` and ``MODEL_NAMES`` (default
    :mod:`pyfed.statements.model`, the SCAFFOLD model; :mod:`pyfed.models.fedavg.vocabulary` for
    FedAvg). A name resolved under one vocabulary is remembered on ``node`` for that vocabulary only.
    """
    vocab = model if vocab is None else vocab
    done = getattr(node, "resolved", None)
    if done is not None and getattr(node, "resolved_in", model.NAMESPACE) == vocab.NAMESPACE:
        return None if done[0] == "other" else done   # already resolved (and rewritten): the same answer

    def lookup(full):
        if full in decls.def_keys:
            return ("def", decls.def_keys[full])
        pre = vocab.NAMESPACE + "."
        if full.startswith(pre) and full[len(pre):] in vocab.MODEL_NAMES:
            return ("model", full[len(pre):])
        return None

    line, col = (node.line, node.col) if node is not None else (0, 0)
    root_only = written.startswith("_root_.")
    w = written[len("_root_."):] if root_only else written
    if not root_only and ctx.namespace:
        parts = ctx.namespace.split(".")
        for k in range(len(parts), 0, -1):
            hit = lookup(".".join(parts[:k]) + "." + w)
            if hit is not None:
                return _mark(node, hit, vocab)
    hits: dict = {}
    for full in [w] + ([] if root_only else [o + "." + w for o in ctx.opens]):
        hit = lookup(full)
        if hit is not None and hit not in hits.values():
            hits[full] = hit
    if len(hits) > 1:
        raise LeanNameError(f"ambiguous identifier `{written}`, possible interpretations: "
                            + ", ".join(f"`{h}`" for h in hits) + " (Lean rejects it: qualify the name)",
                            line=line, col=col, path=path, construct=f"ambiguous identifier `{written}`")
    if hits:
        return _mark(node, next(iter(hits.values())), vocab)
    if w in vocab.MODEL_NAMES:
        raise LeanNameError(f"unknown identifier '{written}' ({_model_hint(w, vocab)})", line=line, col=col,
                            path=path, construct=f"unknown identifier '{written}'")
    _mark(node, ("other", written), vocab)
    return None


def _mark(node, hit, vocab=model):
    if node is not None:
        node.resolved = hit
        node.resolved_in = vocab.NAMESPACE
    return hit


#: The command keywords a misspelt command is compared with (did you mean …).
_KEYWORDS = ("theorem", "lemma", "def", "abbrev", "namespace", "section", "end", "open", "variable", "import",
             "noncomputable", "example", "structure", "inductive", "instance", "universe", "set_option")


def _misspelt_command(text: str):
    """A line at column 1 whose first word is not a command but close to one (``theorm``): Lean
    reads it as an unknown command. Raises ReaderError at it; other lines are left alone."""
    for m in re.finditer(r"(?m)^([^\W\d][\w']*)", text):
        w = m.group(1)
        if w in _KEYWORDS or _COMMAND_RE.match(text, m.start()):
            continue
        near = difflib.get_close_matches(w, _KEYWORDS, n=1, cutoff=0.8)
        if near:
            line, col = terms.position_of(text, m.start())
            raise ReaderError([LeanSyntaxError(f"command `{w}`", f"unknown command (did you mean `{near[0]}`?)",
                                               line=line, col=col,
                                               supported="import, namespace, section, open, variable, def, theorem")])


def _refuse_characters(clean: str, path: str) -> None:
    """Raise :class:`ReaderError` listing, one per line, every character outside comments that
    Lean itself refuses (:func:`pyfed.lean.terms.lean_refusal`: a tab, an isolated carriage return,
    an invisible character such as a zero-width space, a non-ASCII digit), each at its
    ``file:line:col`` in Lean's words; before anything else is read, as Lean stops there."""
    errors, lines = [], set()
    for m in re.finditer(r"[^\x20-\x7e\n]", clean):
        refused = terms.lean_refusal(clean, m.start())
        if refused is None:
            continue
        line, col = terms.position_of(clean, m.start())
        if line not in lines:
            lines.add(line)
            errors.append(LeanError(*refused, line=line, col=col, path=path))
    if errors:
        raise ReaderError(errors, path)


def _split_commands(text: str) -> list[_Command]:
    _misspelt_command(text)
    starts = [m.start() for m in _COMMAND_RE.finditer(text)]
    if not starts or starts[0] != 0:
        # text before the first command: only whitespace is allowed
        first = starts[0] if starts else len(text)
        head = text[:first]
        if head.strip():
            k = len(head) - len(head.lstrip())
            line, col = terms.position_of(text, k)
            raise ReaderError([LeanSyntaxError("text outside a command", repr(head.strip()[:40]), line=line, col=col,
                                               supported="import, namespace, open, variable, def, theorem")])
    out = []
    for a, b in zip(starts, starts[1:] + [len(text)]):
        line, col = terms.position_of(text, a)
        out.append(_Command(text[a:b], a, line, col))
    return out


def _open_names(spec: str) -> list:
    """Namespaces of an ``open`` command's argument text (``scoped``, ``hiding …``, ``renaming …``
    and explicit ``(names)`` lists are read as opening the namespace)."""
    out = []
    for w in spec.split():
        if w in ("scoped", "hiding", "renaming") or w.startswith("("):
            if w != "scoped":
                break
            continue
        out.append(w)
    return out


def _resolve_namespace(name: str, ns: str, known: set) -> list:
    """The namespaces ``open name`` opens inside namespace ``ns`` (Lean resolves it relative to
    the enclosing namespaces first); an unknown one (Mathlib's) is kept as written."""
    parts = ns.split(".") if ns else []
    found = [".".join(parts[:k] + [name]) for k in range(len(parts), 0, -1)
             if ".".join(parts[:k] + [name]) in known]
    if name in known or not found:
        found.append(name)
    return found


def scan_declarations(text: str, path: str = "<text>") -> Declarations:
    """The file's commands: theorems, defs (read and elaborated), imports, variables.

    Tracks ``namespace``/``section``/``end`` and ``open`` (file-, namespace- and section-level,
    and ``open … in`` for one command) so that names are resolved as Lean resolves them
    (:func:`resolve_name`): each theorem's :class:`Context` is in ``contexts``; defs are keyed
    by their name as declared, or by ``_root_.<full name>`` when that name is also a model
    definition or another def's.

    Raises :class:`ReaderError` for a text that cannot be split into commands; unsupported
    commands are collected in ``errors`` (reported when theorems are read)."""
    clean = terms.strip_comments(text)
    _refuse_characters(clean, path)
    decls = Declarations(path)
    declared: dict = {}         # full name -> (line, col) of its declaration (Lean: one declaration per name)
    bare_names: dict = {}       # theorem name as pyfed names statements -> full name
    clashes: list = []          # names declared twice: always an error (never a statement silently lost)
    frames: list = [["root", "", []]]   # [kind, name, opened namespaces]
    variables: list = []        # [(binder, section depth)]
    raw: list = []              # [(declared name, full name, cmd, variables, context)]
    pending: list = []          # namespaces of an `open … in` line, for the next command
    # namespaces the file declares (for `open X` relative to the enclosing namespace)
    for m in re.finditer(r"(?m)^namespace\s+(\S+)", clean):
        parts = m.group(1).split(".")
        decls.namespaces.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))

    def current_ns():
        return ".".join(n for k, n, _ in frames if k == "namespace" and n)

    for cmd in _split_commands(clean):
        body = cmd.text.strip()
        first = body.split(None, 1)[0] if body else ""
        once: list = []
        if first == "open":
            m = re.match(r"open\s+(.*?)\s+in\b\s*", body, re.S)
            if m is None:        # `open X Y`: until the end of the enclosing namespace or section
                for name in _open_names(body[len("open"):]):
                    frames[-1][2].extend(_resolve_namespace(name, current_ns(), decls.namespaces))
                continue
            for name in _open_names(m.group(1)):
                once.extend(_resolve_namespace(name, current_ns(), decls.namespaces))
            rest = body[m.end():]
            if not rest.strip():
                # `open X in` on its own line: it applies to the next command
                pending = once
                continue
            lead = len(cmd.text) - len(cmd.text.lstrip())
            off = cmd.offset + lead + m.end()
            line, col = terms.position_of(clean, off)
            cmd = _Command(rest, off, line, col)
            body = rest.strip()
            first = body.split(None, 1)[0] if body else ""
        elif pending:
            once, pending = pending, []
        if first == "import":
            decls.imports.extend(body.split()[1:])
            continue
        if first in ("universe", "set_option", "attribute", "notation", "macro") or first.startswith("#"):
            if first in ("notation", "macro"):
                decls.errors.append(LeanSyntaxError(f"`{first}` command", "new syntax is not read",
                                                    line=cmd.line, col=cmd.col, path=path,
                                                    supported="the model's own notation"))
            continue
        if first == "namespace":
            frames.append(["namespace", body.split()[1] if len(body.split()) > 1 else "", []])
            continue
        if first == "section" or body.startswith("noncomputable section"):
            frames.append(["section", "", []])
            continue
        if first == "end":
            if len(frames) > 1:
                frames.pop()
            depth = len(frames) - 1
            variables = [(b, d) for b, d in variables if d <= depth]
            continue
        if first == "variable":
            header = body[len("variable"):]
            try:
                start = cmd.offset + cmd.text.index("variable") + len("variable")
                line, col = terms.position_of(clean, start)
                bs = terms.parse_binders(header, path=path, line=line, col=col)
            except LeanSyntaxError as e:
                decls.errors.append(e)
                continue
            variables.extend((b, len(frames) - 1) for b in bs)
            continue
        m = _DECL_RE.match(body)
        if not m:
            decls.errors.append(LeanSyntaxError(f"command `{first}`", "", line=cmd.line, col=cmd.col, path=path,
                                                supported="import, namespace, section, open, variable, def, theorem"))
            continue
        kind, name = m.group("kind"), terms.canonical_name(m.group("name")) if m.group("name") else ""
        namespace = current_ns()
        ctx = Context(namespace, tuple(o for _, _, opens in frames for o in opens) + tuple(once))
        lead = len(cmd.text) - len(cmd.text.lstrip())
        name_line, name_col = terms.position_of(clean, cmd.offset + lead + m.start("name"))
        if kind == "example":
            # an anonymous theorem: named by its line, stable while the lines above it do not move
            name = f"example@{cmd.line}"
        elif kind in ("theorem", "lemma", "def", "abbrev"):
            if not m.group("name") or not terms.is_name(m.group("name")):
                decls.errors.append(LeanError(f"expected identifier after `{kind}`" if not m.group("name") else
                                              f"`{m.group('name')}` is not a Lean identifier", "",
                                              line=name_line, col=name_col, path=path))
                continue
            full = name[len("_root_."):] if name.startswith("_root_.") else \
                (f"{namespace}.{name}" if namespace else name)
            if full in declared:
                at = declared[full]
                clashes.append(LeanError(f"'{full}' has already been declared",
                                              f"first declared at {path}:{at[0]}:{at[1]}",
                                              line=name_line, col=name_col, path=path))
                continue
            declared[full] = (name_line, name_col)
        if kind in ("theorem", "lemma", "example"):
            short = name.split(".")[-1]
            if short in bare_names:
                # Lean accepts two theorems of one name in different namespaces; pyfed names a statement
                # by its last component, so it would silently check only one of them: refused instead
                clashes.append(LeanError(f"two theorems named `{short}` ({bare_names[short]} and "
                                              f"{namespace + '.' if namespace else ''}{name})",
                                              "pyfed names statements by their last component: rename one",
                                              line=name_line, col=name_col, path=path))
                continue
            bare_names[short] = f"{namespace + '.' if namespace else ''}{name}"
            decls.theorems[name] = (namespace, cmd, [b for b, _ in variables])
            decls.contexts[name] = ctx
            decls.order.append(name)
        elif kind in ("def", "abbrev"):
            full = name[len("_root_."):] if name.startswith("_root_.") else \
                (f"{namespace}.{name}" if namespace else name)
            raw.append((name, full, cmd, [b for b, _ in variables], ctx))
        elif kind in ("structure", "inductive") and _is_model_decl(namespace, name):
            pass        # the model's own structure (a copy of a model file): already known
        else:
            decls.errors.append(LeanSyntaxError(f"`{kind}` declaration", "the reader knows the model's own "
                                                "structures only", line=cmd.line, col=cmd.col, path=path,
                                                supported="def (arithmetic) and theorem"))
    if clashes:
        raise ReaderError(clashes, path)
    decls.raw_defs = raw
    return decls


def header_tokens(cmd: _Command, clean: str, path: str, kind: str, name: str):
    """Tokens of a declaration from after its name up to ``:=`` (and the body text after it)."""
    text = cmd.text
    m = _DECL_RE.match(text.lstrip())
    lead = len(text) - len(text.lstrip())
    after = lead + m.end()
    header, body = terms.cut_at_assign(text[after:])
    line, col = terms.position_of(clean, cmd.offset + after)
    toks = terms.tokenize(header, line=line, col=col, path=path)
    toks = _WithSrc(toks, header)
    body_pos = None
    if body is not None:
        boff = cmd.offset + after + len(header) + 2
        body_pos = terms.position_of(clean, boff)
    return toks, body, body_pos


def used_variables(variables, binders, body_text: str, exclude=frozenset()):
    """Section ``variable`` binders a declaration uses (Lean includes those whose names occur in
    it, and the variables their types mention); names in ``exclude`` are the declaration's own."""
    text = " ".join([b.type.text if b.type is not None else "" for b in binders] + [body_text or ""])
    words = set(re.findall(r"[^\W\d][\w'.₀-₉]*", text))
    words |= {w.split(".")[0] for w in words}
    words -= set(exclude)
    keep: list = []
    changed = True
    chosen = set()
    while changed:
        changed = False
        for i, b in enumerate(variables):
            if i in chosen:
                continue
            if b.name in words:
                chosen.add(i)
                changed = True
                if b.type is not None:
                    ws = set(re.findall(r"[^\W\d][\w'₀-₉]*", b.type.text))
                    words |= ws
    for i, b in enumerate(variables):
        if i in chosen:
            keep.append(b)
    return keep


def _is_model_decl(namespace: str, name: str) -> bool:
    """True when ``namespace.name`` is a structure or inductive of pyfed's model (read from its Lean files)."""
    full = f"{namespace}.{name}" if namespace else name
    d = model_declarations().get(full)
    return d is not None and d.kind in ("structure", "inductive")


def theorem_header(name, cmd, clean, path) -> tuple:
    """``(binders before the colon, the statement's type, header text)`` of theorem ``name``.
    Raises :class:`~pyfed.lean.terms.LeanSyntaxError` for a header outside the grammar, and for a
    theorem without ``:=`` and a proof (Lean refuses it; ``:= by sorry`` is accepted)."""
    toks, body, _ = header_tokens(cmd, clean, path, "theorem", name)
    p = make_parser(toks, path, stop={":="})
    binders = p.binders()
    if not p.at(":"):
        t = p.peek() or (toks[-1] if toks else None)
        raise LeanSyntaxError("theorem header", "expected `:` and the statement", line=t.line if t else cmd.line,
                              col=t.col if t else cmd.col, path=path)
    p.take(":")
    ty = p.term(0)
    if p.peek() is not None:
        t = p.peek()
        raise LeanSyntaxError(f"token {t.text!r}", "after the statement", line=t.line, col=t.col, path=path)
    if body is None:            # checked after the header parsed: an unclosed bracket hides `:=` too
        last = toks[-1] if toks else None
        line, col = (last.line, last.col + len(last.text)) if last is not None else (cmd.line, cmd.col)
        raise LeanSyntaxError(f"theorem `{name}` without a proof", "Lean refuses a theorem without `:=` and a "
                              "proof after its statement", line=line, col=col, path=path,
                              supported="theorem NAME … : statement := by sorry")
    _check_proof(body, cmd, clean, path)
    header_text = " ".join(toks.src.split()) if getattr(toks, "src", None) else " ".join(t.text for t in toks)
    return binders, ty, header_text


def _check_proof(body: str, cmd, clean: str, path: str) -> None:
    """Refuse, as Lean does, a proof that is empty: ``:=`` with nothing after it (Lean expects a
    term) or ``:= by`` with no tactic (Lean: ``expected '{' or tactic``), at the next token (the
    next command's first word) or the end of the file."""
    m = re.fullmatch(r"\s*(by)?\s*", body)
    if m is None:
        return
    end = cmd.offset + len(cmd.text)
    nxt = re.match(r"\S+", clean[end:])
    expected = "'{' or tactic" if m.group(1) else "term"
    line, col = terms.position_of(clean, end)
    found = f"unexpected token '{nxt.group()}'" if nxt else "unexpected end of input"
    raise LeanError(f"{found}; expected {expected}",
                    "the proof is empty (write `:= by sorry` for a statement whose proof is to come)",
                    line=line, col=col, path=path)


#: The model namespaces whose ``Run`` structure a statement can quantify over.
RUN_NAMESPACES = ("SCAFFOLD", "FedAvg")


def run_namespace(type_node, ctx: Context) -> str | None:
    """The model namespace (``"SCAFFOLD"`` or ``"FedAvg"``) of a binder type ``Run …`` as Lean
    resolves the name ``Run`` in ``ctx`` (qualified, through the enclosing namespaces innermost
    first, then the opened ones), or None when the type is not a model's ``Run``. Two opened
    namespaces that both give a ``Run`` are ambiguous (:class:`LeanNameError`)."""
    h = type_node.head_name() if type_node is not None else None
    if not h:
        return None
    h = h.removeprefix("_root_.")
    if h.endswith(".Run") and h[:-len(".Run")] in RUN_NAMESPACES:
        return h[:-len(".Run")]
    if h != "Run":
        return None
    parts = ctx.namespace.split(".") if ctx.namespace else []
    for k in range(len(parts), 0, -1):
        if parts[k - 1] in RUN_NAMESPACES:
            return parts[k - 1]
    hits = [o for o in ctx.opens if o in RUN_NAMESPACES]
    if len(set(hits)) > 1:
        raise LeanNameError("ambiguous identifier `Run`, possible interpretations: "
                            + ", ".join(f"`{o}.Run`" for o in sorted(set(hits))) + " (Lean rejects it: qualify the name)",
                            line=type_node.line, col=type_node.col, path="<text>",
                            construct="ambiguous identifier `Run`")
    return hits[0] if hits else None


def push_lets(node):
    """``let x := v; A rel B`` as ``(let x := v; A) rel (let x := v; B)``: a conclusion's ``let`` s
    pushed into both sides of its comparison (nested ``let`` s in order)."""
    if node.kind != "let":
        return node
    inner = push_lets(node.args[1])
    if inner.kind != "binop" or len(inner.args) < 2:
        return node
    sides = [Node("let", node.value, [node.args[0], side], node.line, node.col, f"let {node.value} := "
                  f"{node.args[0].text}; {side.text}") for side in inner.args[:2]]
    return Node("binop", inner.value, sides + inner.args[2:], inner.line, inner.col, inner.text)
