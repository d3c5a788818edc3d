"""The search by optimisation, written once for every model: search spaces
(:mod:`.space`), the optimiser (:mod:`.optimise`) and its place beside each model's own
adversarial search (:mod:`.run`)."""
