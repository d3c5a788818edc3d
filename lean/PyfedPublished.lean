import PyfedPublished.Scaffold
import PyfedPublished.FedAvg

/-!
# The published statements against pyfed's model

Library `PyfedPublished`: the published SCAFFOLD and FedAvg statements, each file importing only
the model module it needs (`Pyfed.Scaffold.Model`, `Pyfed.FedAvg.Model`), exactly as the
published files import `Definitions.Def_SCAFFOLD_Model` and `Definitions.Def_FedAvg_Model`.
-/
