"""The ``pyfed check --replay`` front end (pyfed.commands.replay)."""

import json

from cli_helpers import run_main



def test_replay_of_a_search_record_names_the_command_that_reproduces_it(tmp_path, capsys):
    rec = {"statement": "ConvexFiniteRoundConvergence", "lean_declaration": "SCAFFOLD.ConvexFiniteRoundConvergence",
           "seed": 3, "budget": 16, "relax": ["step_size"], "mutate": None, "instance": {}, "index": 0}
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    code, out, err = run_main(["check", "--replay", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "a record of `pyfed search ConvexFiniteRoundConvergence`" in err
    assert "`pyfed search ConvexFiniteRoundConvergence --seed 3 --budget 16 --relax step_size --out DIR`" in err
    assert "give PATH.lean" not in err
