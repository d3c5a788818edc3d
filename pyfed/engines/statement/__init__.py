"""Every engine, one statement object: decisions of a :class:`~pyfed.statements.Statement`.

One module per stage, imports only going down:

* :mod:`.instance` -- :class:`RunInstance` and its exact JSON;
* :mod:`.access` -- the model quantities in one arithmetic, :func:`bind`, :func:`linear_form`;
* :mod:`.hypotheses` -- hypotheses decided exactly, :func:`fits`, :func:`fit_step`, :func:`max_eta_l`;
* :mod:`.exact` -- exact moments (:func:`decide_exact`, :func:`sides_exact`, :func:`recheck`);
* :mod:`.montecarlo` -- simulated runs with confidence intervals (:func:`decide_montecarlo`);
* :mod:`.candidates`, :mod:`.adversarial` -- the adversarial search;
* :mod:`.constants`, :mod:`.profile` -- the constant profile;
* :mod:`.pep` -- the worst case over the function class;
* :mod:`.engines` -- which engines apply.

Engines never print. This package re-exports the public names of its modules.
"""

from .adversarial import Record, SearchResult, evaluate_candidate, search
from .access import (BallAccess, ExactAccess, FloatAccess, NotLinear, SymbolicAccess, bind, exact_weights,
                     linear_form)
from .candidates import LADDER, candidate, structured_count
from .engines import applicable_engines
from .exact import decide_exact, recheck, sides_exact
from .hypotheses import (STEP_HALVINGS, evaluate_hypotheses, fit_step, fits, hypothesis_mentions, max_eta_l,
                         step_hypothesis)
from .instance import (INSTANCE_SCHEMA, ORACLE_LAW, SAMPLING_LAW, WITNESS_SCHEMA, RunInstance, instance_from_json,
                       instance_to_json, side_json)
from .constants import Literal, literals
from .montecarlo import decide_montecarlo
from .pep import NoPEP, find_plan, pep_plan, pep_row
from .profile import PERSIST_HALVINGS, PERSIST_NOTE, constant_profile, outward_decimal, profile_size

__all__ = ["RunInstance", "instance_to_json", "instance_from_json", "side_json", "INSTANCE_SCHEMA", "WITNESS_SCHEMA",
           "ORACLE_LAW", "SAMPLING_LAW", "ExactAccess", "BallAccess", "FloatAccess", "SymbolicAccess", "NotLinear",
           "bind", "linear_form", "exact_weights", "fits", "evaluate_hypotheses", "fit_step", "step_hypothesis",
           "hypothesis_mentions", "max_eta_l", "STEP_HALVINGS", "decide_exact", "sides_exact", "recheck",
           "decide_montecarlo", "candidate", "structured_count", "LADDER", "Literal", "literals", "search",
           "evaluate_candidate", "Record", "SearchResult", "constant_profile", "profile_size", "outward_decimal",
           "PERSIST_NOTE", "PERSIST_HALVINGS", "NoPEP", "find_plan", "pep_plan", "pep_row", "applicable_engines"]
