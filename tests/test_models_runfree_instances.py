"""Drawing the binders of procedures (pyfed.models.runfree.instances): synchronisation steps,
gradients of drawn functions, index draws as data; ∅ read; an undrawable binder named."""

from pathlib import Path

from pyfed.models.registry import read_text
from pyfed.models.runfree.instances import SYNC_PERIODS, draw, sync_steps
from pyfed.models.runfree.plan import plan
from pyfed.models.runfree.search import search_lemma
from pyfed.statements.interpret import Interpreter

DATA = Path(__file__).parent / "data" / "search" / "local_sgd.lean"

HEAD = "import Pyfed\n\nnamespace T\n\nopen SCAFFOLD\n\n"


def test_sync_steps():
    assert sync_steps(0, 5) == frozenset()
    assert sync_steps(1, 1) == frozenset(range(1, 13))
    assert sync_steps(3, 1) == frozenset({3, 6, 9, 12})
    assert SYNC_PERIODS[:2] == (0, 1)


def test_procedure_binders_are_drawn():
    st = read_text(DATA.read_text(), str(DATA))[1]             # LocalSGDSyncedTogether
    pl = plan(st)
    interp = Interpreter(st.file_decls, st.context)
    got = None
    for index in range(20):
        got = draw(st, pl, 0, index, interp)
        if got is not None:
            break
    env = got.env
    assert isinstance(env["sync"], frozenset) and env["t"] in env["sync"]
    assert env["grads"].spec["family"] == "fin" and env["grads"].values[0].spec["family"] == "gradient map"
    assert env["draws"].spec["family"] == "index draws"


def test_empty_set_is_read_and_an_undrawable_binder_is_named():
    text = HEAD + ("theorem Empty {n : ℕ} (s : Finset (Fin n)) (hs : s = ∅) : s.card = 0 := by sorry\n\n"
                   "theorem Odd (f : (ℕ → ℝ) → ℝ) (x : ℝ) : f (fun _ => x) ≤ f (fun _ => x) + 1 := by sorry\n\nend T\n")
    sts = read_text(text, "probe.lean")
    assert sts[0].name == "Empty"
    res = search_lemma(sts[1], seed=0, budget=2)
    assert res.verdict.status == "inconclusive"
    assert "cannot draw `f : (ℕ → ℝ) → ℝ`" in res.verdict.reason
