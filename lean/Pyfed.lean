import Pyfed.Scaffold.Model
import Pyfed.Scaffold.Theorems
import Pyfed.Lemmas.Inequalities
import Pyfed.Lemmas.Averaging
import Pyfed.Lemmas.Sampling
import Pyfed.Lemmas.Martingale
import Pyfed.Algorithms.LocalPath
import Pyfed.Algorithms.FedAvg
import Pyfed.Algorithms.Scaffold
import Pyfed.Algorithms.LocalSGD
import Pyfed.Exact

/-!
# pyfed: Lean side

Model definitions and theorem statements of the SCAFFOLD / FedAvg / Local SGD theory checked
numerically by the Python package `pyfed` (one Lean theorem per checker, same bare name,
namespace `SCAFFOLD`), plus the computable ℚ mirrors of the arithmetic definitions.
-/
