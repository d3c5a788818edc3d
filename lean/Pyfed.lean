import Pyfed.Scaffold.Model
import Pyfed.Scaffold.Theorems
import Pyfed.FedAvg.Model
import Pyfed.FedAvg.Theorems
import Pyfed.Lemmas.Inequalities
import Pyfed.Lemmas.Averaging
import Pyfed.Lemmas.Sampling
import Pyfed.Lemmas.Martingale
import Pyfed.Algorithms.LocalPath
import Pyfed.Algorithms.FedAvg
import Pyfed.Algorithms.Scaffold
import Pyfed.Algorithms.LocalSGD
import Pyfed.Algorithms.FedProx
import Pyfed.Exact

/-!
# pyfed: Lean side

Model definitions and theorem statements of the federated optimization theory checked by the
Python package `pyfed`:

* namespace `SCAFFOLD`: the SCAFFOLD model and its five finite-round statements
  (`Pyfed.Scaffold`), the seed-002 lemmas (`Pyfed.Lemmas`), the SCAFFOLD and Local SGD
  procedures (`Pyfed.Algorithms`) and the computable ℚ mirrors (`Pyfed.Exact`);
* namespace `FedAvg`: the Field Guide model of full-participation FedAvg and its four
  statements (`Pyfed.FedAvg`);
* namespace `FedAvgProcedure`: FedAvg as a deterministic procedure of one realization
  (`Pyfed.Algorithms.FedAvg`);
* namespace `FedProxProcedure`: FedProx (Li et al., MLSys 2020, Algorithm 2) as a deterministic
  procedure of one realization (`Pyfed.Algorithms.FedProx`).

Every statement with a checker has the checker's name (`checkers.registry`).
-/
