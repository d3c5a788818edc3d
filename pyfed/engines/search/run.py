"""The adversarial search of a statement as every engine runs it: the model's own search (its
structured candidates and random draws, :meth:`pyfed.models.protocol.Model.search`), then, when it
found no counterexample, the search by optimisation over the model's search space
(:func:`pyfed.engines.search.optimise.optimise`).

A violation found by the optimiser becomes the search's verdict (the model's own verdict, its
witness re-checked exactly); otherwise the model's verdict stays as it was and its details gain
``reach``: how far the optimiser went (configurations, sizes, families, ranges, exact decisions,
the binders it could not draw), so a report says what was *not* tried.
"""

from __future__ import annotations

from ..statement.search import SearchResult
from .optimise import optimise
from .space import NoSearchSpace

__all__ = ["search_statement"]


def search_statement(st, *, seed: int = 0, budget: int = 24, quick: bool = False, progress=None,
                     pool=None, optimiser: bool = True) -> SearchResult:
    """The model's search of ``st`` (``budget`` random draws after its structured candidates;
    ``pool`` where the model spreads its candidates), then the search by optimisation (``quick``:
    its small budget; ``optimiser=False`` skips it). ``progress(label)`` is told each stage."""
    tell = progress or (lambda label: None)
    res = st.model.search(st, seed=seed, budget=budget, pool=pool if st.model.search_pool(st) else None)
    if res.verdict.status == "violated" or not optimiser:
        return res
    start = 1 + max([int(getattr(r, "index", 0) or 0) for r in res.records] + [-1])
    try:
        opt = optimise(st, seed=seed, quick=quick, start_index=start, record_budget=budget,
                       progress=lambda label: tell(f"{st.name}: {label}"))
    except NoSearchSpace as exc:
        res.verdict.details = dict(res.verdict.details or {}, reach={"not_searched": str(exc)})
        return res
    if opt.verdict is not None:
        v = opt.verdict
        v.details = dict(v.details or {}, found_by="search by optimisation", reach=opt.reach())
        return SearchResult(list(res.records) + list(opt.records), v, seed, budget,
                            tried=int(res.tried) + opt.evaluations)
    res.verdict.details = dict(res.verdict.details or {}, reach=opt.reach())
    return res
