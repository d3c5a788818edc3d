"""Two-sided profile of the potential constant 9 of the seed convex statement from PEP certificates.

For T = 2 and 3 (N = K = 2, S = N, σ = 0, β = ηg = 1, μ = 0, ηl the largest step the hypotheses
admit): the smallest value of the 9 with a verified exact certificate (halving, then bisection;
pyfed.models.scaffold.pep_profile), beside the search's threshold at seed 0. Prints one line per
T, writes pep_certificate_profile.json and pep_certificate_profile.png to the output directory.

Run: ``python examples/pep_certificate_profile.py [OUT_DIR]`` (a few minutes).
"""

import json
import sys
from pathlib import Path

from pyfed.models.scaffold.model import statement_of

from pyfed.suites.scaffold import CONVEX
from pyfed.models.scaffold.pep_profile import plot_certificate_profile, two_sided_profile

KEY = "convexRHS.potential=9"


def main(out=".") -> int:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    st = statement_of(CONVEX)
    rows, report = [], []
    for T in (2, 3):
        prof = two_sided_profile(st, KEY, seed=0, budget=4, search=(T == 2), T=T, halvings=8, refine=3)
        rows.append((T, prof["certificate_side"]))
        report.append({"T": T, **prof})
        print(f"T = {T}: {prof['certificate_side']['statement']}")
        if "witness_side" in prof:
            print(f"       search side (seed 0): {prof['witness_side']['statement']}")
    (out / "pep_certificate_profile.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    plot_certificate_profile(rows, out / "pep_certificate_profile.png", constant="9", parameter="T")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
