"""Lean artefacts of what holds: a statement restated at fixed parameter values (the lemma
instance a certificate proves, :func:`instance_statement`), the proof skeleton of a statement that
follows from a published one (:func:`proof_skeleton`, template ``proof_skeleton.lean.j2``) and the
certificate files of a PEP proof (:func:`certificate_records`).

No Lean toolchain runs here: the skeleton is the proof's structure (the published theorem applied,
each scalar side condition a named ``have`` with pyfed's exact certificate in a comment and a
tactic hint), to be completed and checked with ``lake build``. The tactic and lemma names of the
hints (``nlinarith``, ``linarith``, ``positivity``, ``norm_num``, ``mul_pos``, ``mul_nonneg``,
``sq_nonneg``, ``le_trans``) are Mathlib's at the pinned revision.
"""

from __future__ import annotations

from fractions import Fraction

from ...lean.templating import doc_safe, environment, sanitize
from ...lean.terms import Parser, tokenize

__all__ = ["statement_parts", "instance_statement", "proof_skeleton", "certificate_records", "lean_number", "rename"]

HEADER = "-- written by `pyfed check --out` — a proof skeleton to complete and check with `lake build`"


def lean_number(v, kind: str = "real") -> str:
    """A Lean numeral: ``3`` for a natural number, ``(p / q : ℝ)`` for a real."""
    f = Fraction(v)
    if kind == "nat":
        return str(f.numerator)
    if f.denominator == 1:
        return f"({f.numerator} : ℝ)"
    return f"({f.numerator} / {f.denominator} : ℝ)"


def rename(text: str, names: dict) -> str:
    """``text`` (Lean) with every identifier of ``names`` (and the head of a dotted one, ``P.β``)
    replaced by its image; nothing else changes."""
    if not names or not text:
        return text
    try:
        toks = tokenize(text)
    except Exception:       # not a term pyfed tokenizes: left as it is
        return text
    out, pos = [], 0
    for t in toks:
        if t.kind != "ident":
            continue
        head, dot, rest = t.text.partition(".")
        new = names.get(t.text) or (names.get(head) + dot + rest if head in names else None)
        if new is not None and new != t.text:
            out.append(text[pos:t.start])
            out.append(new)
            pos = t.end
    out.append(text[pos:])
    return "".join(out)


def _binder_text(b) -> str:
    t = b.type.text if b.type is not None else None
    if b.style == "instance":
        return f"[{t}]" if b.name in ("_", "", None) else f"[{b.name} : {t}]"
    if t is None:
        return b.name
    open_, close = {"implicit": ("{", "}"), "strict": ("⦃", "⦄")}.get(b.style, ("(", ")"))
    return f"{open_}{b.name} : {t}{close}"


def statement_parts(st) -> tuple:
    """``(binders, body)`` of a statement's Lean text: every binder before the colon and of the
    type's leading ``∀`` (as Lean text, in order), and the rest of the type."""
    text = st.text.split(" ", 2)[2] if st.text.startswith("theorem ") else st.text
    parser = Parser(tokenize(text), src=text)
    binders = parser.binders()
    parser.take(":")
    ty = parser.term(0)
    binders = list(binders)
    if ty.kind == "forall":
        binders += list(ty.value)
        ty = ty.args[0]
    return [_binder_text(b) for b in binders], [b.name for b in binders], ty.text


def instance_statement(st, values: dict, *, name: str = "instance_statement", kinds: dict | None = None) -> str:
    """The Lean theorem stating ``st`` at the parameter ``values`` (Lean names such as ``β``,
    ``P.β``, ``N`` to numbers): the statement's binders, then the equalities fixing the values as
    hypotheses, then its body, ``:= by sorry`` (a certificate file's lemma instance)."""
    binders, _names, body = statement_parts(st)
    kinds = kinds or {p.name: p.kind for p in st.parameters}
    eqs = [f"{k} = {lean_number(v, kinds.get(k, 'real'))}" for k, v in values.items()]
    head = f"∀ {' '.join(binders)}, " if binders else ""
    hyp = (" → ".join(eqs) + " → ") if eqs else ""
    return f"theorem {name} :\n    {head}{hyp}{body} := by sorry"


def proof_skeleton(st, proof) -> str:
    """The Lean proof skeleton of a statement proven by ``published`` or ``reduction`` (module
    docstring)."""
    binders, _names, body = statement_parts(st)
    intro = _intro_names(st)
    app = proof.application or {}
    haves, rhs = [], None
    for step in proof.steps:
        cert = step.certificate
        if cert is None or not step.name or step.name == "h_published":
            continue
        item = {"name": sanitize(step.name), "claim": doc_safe(step.claim), "statement": step.statement,
                "certificate": doc_safe(cert.text()), "hints": ", ".join(cert.lean_hints())}
        if step.name == "h_rhs":
            rhs = item
        elif step.statement:
            haves.append(item)
    named = " ".join(f"({p} := {u})" for p, u in app.get("named", []))
    hyps = " ".join("(by assumption)" for _ in app.get("hypotheses", []))
    env = environment()
    return env.get_template("proof_skeleton.lean.j2").render(
        header=HEADER, name=sanitize(st.name) + "_proof", statement=st.qualified_name, source=st.source,
        binders=" ".join(binders), body=body, published=proof.source.get("lean_name", ""),
        proof_file=proof.source.get("proof", ""), kind=proof.kind, summary=doc_safe(proof.summary), haves=haves,
        rhs=rhs, intro=" ".join(intro), application=f"{named} {hyps}".strip(), namespace=st.namespace,
        conclusion=app.get("conclusion", ""), model_namespace=proof.source.get("lean_name", "").split(".")[0])


def _intro_names(st) -> list:
    """Names for ``intro`` of the type's ``∀`` binders and ``A → B`` antecedents, in order (the
    antecedents named ``hyp1`` …; instance binders ``_``)."""
    text = st.text.split(" ", 2)[2] if st.text.startswith("theorem ") else st.text
    parser = Parser(tokenize(text), src=text)
    parser.binders()
    parser.take(":")
    node = parser.term(0)
    out, k = [], 0
    while True:
        if node.kind == "forall":
            out += [b.name if b.name and b.style != "instance" else "_" for b in node.value]
            node = node.args[0]
        elif node.kind == "binop" and node.value == "→":
            k += 1
            out.append(f"hyp{k}")
            node = node.args[1]
        else:
            return out


def certificate_records(st, proof) -> list:
    """``[(file stem, record)]`` of every PEP certificate of a ``certificate`` proof: the
    certificate's exact data (``Certificate.to_json``) with ``lean_name``, the parameter values and
    ``instance``, the Lean text stating the lemma instance it proves."""
    out = []
    for k, step in enumerate(s for s in proof.steps if getattr(s, "pep_certificate", None)):
        case, cert = step.pep_certificate
        values = {n: v for n, v in case.values.items() if isinstance(v, (Fraction, int))}
        rec = {"lean_name": st.qualified_name, **cert.to_json(case.pep),
               "parameters": {n: str(v) for n, v in values.items()},
               "instance": instance_statement(st, values)}
        out.append((f"Certificate_{sanitize(st.name)}_{k}", rec))
    return out
