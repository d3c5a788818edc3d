import Pyfed

/-!
False: the mean of the workers' steps is not a step of length 2 η of the mean.
-/

namespace SCAFFOLD.Variants

theorem LocalSGDMeanStepWrong {d workers : ℕ} (hw : workers = 2) (x g : Fin workers → Space d) (η : ℝ) :
    workerMean (fun k => x k - η • g k) = workerMean x - (2 * η) • workerMean g := by sorry

end SCAFFOLD.Variants
