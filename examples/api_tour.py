"""A tour of pyfed's Python API, cell by cell (run it as a script, or paste the cells into a notebook).

Everything here goes through ``import pyfed``: read a Lean statement, decide it, look at the
verdicts and the witness, simulate the algorithm the statement is about. It takes a few seconds.
"""

# %% 1. A statement written in Lean (the same text a .lean file would hold)
import numpy as np

import pyfed

TEXT = """import Pyfed

namespace Tour

/-- Young's inequality with the constant 1/2 where 1 belongs: false. -/
theorem YoungHalf (a b : ℝ) : 2 * a * b ≤ (a ^ 2 + b ^ 2) / 2 := by sorry

/-- The true one. -/
theorem Young (a b : ℝ) : 2 * a * b ≤ a ^ 2 + b ^ 2 := by sorry

end Tour
"""

statements = pyfed.read_text(TEXT, "tour.lean")
for st in statements:
    print(st.qualified_name, "|", st.family, "|", st.lhs.text, st.relation, st.rhs.text)

# %% 2. Decide each statement with every engine that applies (the Python form of `pyfed check FILE`)
reports = [pyfed.check_statement(st, quick=True, seed=0) for st in statements]
for rep in reports:
    for v in rep.verdicts:
        print(f"{rep.statement.name}: {v.label} ({v.evidence.value if v.evidence else 'no evidence'})")

# %% 3. A violation carries a witness that re-checks exactly
false = reports[0]
violated = [v for v in false.verdicts if isinstance(v, pyfed.Violated)]
assert violated, "Young's inequality with 1/2 is false"
w = violated[0]
print("witness instance:", w.witness["instance"])
print("left side", w.lhs, "> right side", w.rhs)
again = false.statement.model.recheck(false.statement, w.witness)
print("re-checked exactly:", again.status)

# %% 4. A true statement: no counterexample (a finite search proves nothing, and pyfed says so)
true = reports[1]
print([(v.label, getattr(v, "reason", "")) for v in true.verdicts])

# %% 5. Simulate the algorithms the statements are about (vectorised over replicates)
from pyfed.oracles import GaussianOracle          # noqa: E402  (a cell of its own)
from pyfed.problems import random_quadratic       # noqa: E402

problem = random_quadratic(4, 2, np.random.default_rng(0), mu=0.1, L=1.0)
run = pyfed.scaffold(problem, GaussianOracle(problem, 0.1), S=2, K=3, T=20, eta_l=0.05, eta_g=1.0, R=8,
                     rng=np.random.default_rng(1))
gap = [problem.value(run.x[:, t]).mean() - problem.f_star for t in (0, run.x.shape[1] - 1)]
print(f"SCAFFOLD, 8 replicates: mean gap {gap[0]:.3g} at round 0, {gap[1]:.3g} after 20 rounds")
