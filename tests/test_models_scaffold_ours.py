"""pyfed's own SCAFFOLD statements and what the search reads from them
(pyfed.models.scaffold.ours), and the step ladder derived from a statement's own bound
(pyfed.models.scaffold.candidates.step_ladder)."""

from fractions import Fraction as F

from pyfed.models.scaffold.candidates import DOUBLINGS, SLOTS, step_ladder
from pyfed.models.scaffold.ours import our_statements, reference_step_bound, statement_of


def test_reference_step_bound_is_read_from_the_convex_theorem():
    assert reference_step_bound() == F(1, 81)
    assert "ConvexFiniteRoundConvergence" in our_statements()
    assert statement_of("ConvexFiniteRoundConvergence").name == "ConvexFiniteRoundConvergence"


def test_ladder_reaches_one_two_three_over_beta_from_any_bound():
    assert step_ladder(F(1, 81)) == DOUBLINGS + (81, 162, 243)      # the model theorem's bound
    lad = step_ladder(F(1, 24))
    assert len(lad) == SLOTS and [F(1, 24) * m for m in lad[-3:]] == [1, 2, 3]
