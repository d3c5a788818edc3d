"""The search space of run-free statements (pyfed.models.runfree.space) on the lemmas and Local SGD
statements of tests/data/search: every false one caught with the default settings and re-checked from
its witness, its witness also checked by hand; the true ones never violated."""

from fractions import Fraction as F
from pathlib import Path

import pytest

from pyfed.checkers import families as fam
from pyfed.models.registry import read_file
from pyfed.models.runfree.search import decide_lemma_instance, recheck_lemma
from pyfed.models.runfree.space import runfree_space
from pyfed.problems.ridge import RidgeFunction
from pyfed.statements.interpret import FiniteSpace, Filtration

DATA = Path(__file__).parent / "data" / "search"


def _st(file, name):
    return next(s for s in read_file(DATA / f"{file}.lean") if s.name == name)


def _v(*xs):
    return fam.vec([F(x) for x in xs])


def _local_sgd_env(**more):
    grads = fam.fin_family([fam.gradient_map(fam.quadratic([[1]], [b])) for b in (1, -1)])   # x ∓ 1
    env = {"d": 1, "n": 2, "workers": 2, "b": 1, "grads": grads, "η": fam.sequence([F(1, 2)] * 8, F(1, 2)),
           "draws": fam.index_draws([[[0], [1]]] * 4), "x0": _v(0), "t": 1, "k": 0, "l": 1}
    env.update(more)
    return env


def _stich_env():
    f = fam.ridge(RidgeFunction.make([[1]], [0], [[1]], [0], [1], "relu2"))        # x²/2 + max(0, x)²/2
    one = lambda v: fam.random_variable([_v(v)])                                   # noqa: E731
    return {"d": 1, "n": 1, "workers": 2, "Ω": ("Ω", 1), "ν": FiniteSpace((F(1),)),
            "F": Filtration(((0,),)), "fs": fam.fin_family([f]), "L": F(2), "μ": F(1), "xstar": _v(0), "t": 0,
            "η": F(1, 8), "x": fam.fin_family([one(2), one(-2)]), "g": fam.fin_family([one(4), one(-2)]),
            "xnext": one(F(-1, 8))}


@pytest.mark.parametrize("file,name,env,lhs,rhs", [
    ("lemmas", "SumSquaresNarrow", lambda: {"d": 1, "m": 4, "u": fam.fin_family([_v(1)] * 4)}, 16, 14),
    ("lemmas", "SamplingVarianceThreeHalves",
     lambda: {"d": 1, "N": 2, "S": 1, "v": fam.fin_family([_v(1), _v(-1)])}, 1, F(3, 4)),
    ("lemmas", "BregmanSymmetrised",
     lambda: {"d": 1, "h": fam.ridge(RidgeFunction.make([[0]], [0], [[1]], [0], [1], "huber", 1)), "L": F(1),
              "x": _v(0), "y": _v(3)}, 3, 1),
    ("lemmas", "GradientStepThree",
     lambda: {"d": 1, "h": fam.quadratic_from_eigen([1], [0]), "β": F(1), "η": F(3), "x": _v(1), "y": _v(0)}, 2, 1),
    ("local_sgd", "LocalSGDNoSyncTogether", _local_sgd_env, 1, 0),
    ("local_sgd", "LocalSGDSyncedNextStep", lambda: _local_sgd_env(sync=frozenset({1})), 1, 0),
    ("local_sgd", "LocalSGDOneStepNoDrift", _stich_env, F(1, 64), 0),
])
def test_hand_checked_witnesses(file, name, env, lhs, rhs):
    st = _st(file, name)
    rec = decide_lemma_instance(st, env())
    assert rec.status == "violated" and (rec.lhs, rec.rhs) == (lhs, rhs)
    assert recheck_lemma(st, {"instance": rec.instance}).status == "violated"


def test_space_enumerates_sizes_and_families():
    sp = runfree_space(_st("lemmas", "SumSquaresNarrow"))
    assert {c.data["nats"]["m"] for c in sp.configs} == set(range(1, 9))
    assert {c.data["nats"]["d"] for c in sp.configs} == {1, 2, 3}
    sgd = runfree_space(_st("local_sgd", "LocalSGDSyncedNextStep"))
    assert {p for c in sgd.configs for p in c.data["sync"].values()} == {0, 1, 2, 3}
    assert {c.data["draws"] for c in sgd.configs} == {"round robin", "random"}
    assert {c.data["family"] for c in sgd.configs} == {"huber", "relu2", "quadratic", "logcosh"}
