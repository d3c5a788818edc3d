"""Proofs that a whole statement holds (reduction to a proved published statement, closed
statements, identities, vacuity, certificates over parameter ranges)."""
