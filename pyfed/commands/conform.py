"""``pyfed conform ADAPTER``: does this implementation produce runs of the algorithm?

Runs a user's adapter (:mod:`pyfed.conform.protocol`) on the ladder of rational quadratic
instances and compares it with the exact law (:mod:`pyfed.conform.engine`); prints one row per
rung (its rounds and sampling paths), the first deviation in words (round, client, quantity,
expected and observed values, the equation it contradicts, the likely cause), the comparison's
precision and whether the adapter keeps state, and which of pyfed's statements apply. Exit 0 when
it conforms (also when the only deviation is a global step of 1 and ``--eta-g 1`` was declared,
which then conforms), 1 on a deviation, 2 for a broken adapter or bad input (one line).

Also the front end of ``pyfed check --implementation ADAPTER`` (:func:`run_implementation`): the
conformance run, then the applicable statements' Monte Carlo rows on the implementation's own
trajectories.
"""

from __future__ import annotations

import argparse
import json

from rich.markup import escape
from rich.table import Table

from ..errors import InputError
from ..exact import rational_str
from . import COMMAND_HELP, make_console, print_line

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "run_implementation", "render_report", "DESCRIPTION"]

#: ``pyfed conform --help``'s description.
DESCRIPTION = """\
Run an implementation of a federated algorithm (FedAvg, FedProx, SCAFFOLD, FedAdam, FedYogi,
FedAdagrad, Local SGD) on a ladder of small rational quadratic instances and compare every state
it returns with the exact law of the algorithm: 4 rounds per rung, every client subset in rounds 1
and 2 and every subset in every later round, S = 1..N-1 of N = 4, K = 1..3 local steps, step sizes
that differ between rungs, a global step rung, a 3-dimensional rung and a noise rung whose draws
are matched call by call. The adapter exposes one round of the code (module:object or
path.py:object, see docs/howto/conformance.md). Floats are compared within the stated rounding
bound of the working precision (--precision, or the dtype of the returned arrays).

Exit status: 0 it conforms on every rung; 1 a deviation, reported with its likely cause; 2 a
broken adapter or bad input (one line)."""

_STYLE = {"conforms": "bold green", "conforms in law": "bold green", "deviates": "bold red"}


def register(subparsers) -> None:
    """Add the ``conform`` subcommand (sets ``func=run``)."""
    from ..conform import ALGORITHMS, PRECISIONS

    p = subparsers.add_parser("conform", help=COMMAND_HELP["conform"], description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter,
                              epilog="example:\n  pyfed conform examples/conformance/reference.py:Scaffold --option II")
    p.add_argument("adapter", metavar="ADAPTER", help="module:object or path.py:object (see docs/howto/conformance.md)")
    p.add_argument("--algorithm", choices=list(ALGORITHMS), default=None,
                   help="the algorithm the implementation claims to be (default: the adapter's `algorithm`, "
                        "else scaffold)")
    p.add_argument("--option", choices=["I", "II"], default=None,
                   help="SCAFFOLD's control update (default: the adapter's `option`, else II)")
    p.add_argument("--mode", choices=["uniform", "weighted"], default=None,
                   help="FedAvg / FedProx aggregation: uniform-client (1/S) or count-weighted (n_i/n) "
                        "(default: the adapter's `mode`, else uniform)")
    p.add_argument("--eta-g", dest="eta_g", default=None, metavar="ETA_G",
                   help="the global step size the implementation applies, e.g. 1 for FedAvg without a server step "
                        "(default: the adapter's `eta_g`, else none: the ladder varies it); every rung then uses it")
    p.add_argument("--precision", choices=list(PRECISIONS), default=None,
                   help="the implementation's working precision (default: the adapter's `precision`, else the dtype "
                        "of the arrays it returns, else float64); floats are compared within that precision's "
                        "rounding bound")
    p.add_argument("--seed", type=int, default=0, help="seed of pyfed's oracle noise (default 0)")
    p.add_argument("--json", metavar="OUT", help="also write the report as JSON to OUT (checked before the run)")
    p.set_defaults(func=run)


def render_report(console, report, adapter_text: str) -> None:
    """Print a :class:`pyfed.conform.ConformanceReport`: the rung table (rounds, paths, result,
    largest error as a fraction of the bound), the comparison's precision, the adapter's state,
    the first deviation in words, the rungs' notes."""
    t = Table(title=escape(f"pyfed conform {adapter_text}: {report.label()}"))
    for col in ("rung", "instance", "rounds", "paths", "result", "max error / bound"):
        t.add_column(col, overflow="fold")
    for r in report.rungs:
        d = r.deviation
        result = f"[{_STYLE[r.status]}]{r.status}[/]"
        if d is not None:
            where = "initialisation" if d.round == 0 else f"round {d.round}"
            result += escape(f": {where}, {d.quantity}")
        t.add_row(escape(r.name), escape(r.description), str(r.rounds), str(r.paths), result,
                  "-" if d is not None else f"{r.max_ratio:.2g}")
    console.print(t)
    if report.initial_state:
        print_line(console, f"[dim]initial state: built by {escape(report.initial_state)}[/dim]")
    print_line(console, f"[dim]precision: {escape(report.precision)} ({escape(report.precision_source)}); floats "
                        "within gamma_n |Q| of the exact law, n the roundings counted per quantity[/dim]")
    state = report.state.text()
    if state:
        print_line(console, f"[yellow]state:[/yellow] {escape(state)}")
    first = report.first_deviation
    if first is not None:
        print_line(console, "[bold red]first deviation[/bold red]")
        for line in first.lines():
            print_line(console, "  " + escape(line))
    for r in report.rungs:
        for note in r.notes:
            print_line(console, f"  [dim]{escape(r.name)}: {escape(note)}[/dim]")


def _render_statements(console, applicable) -> None:
    if not applicable:
        return
    print_line(console, "[bold]statements[/bold]")
    for a in applicable:
        mark = "[green]applies[/green]" if a.applies else "[yellow]does not apply[/yellow]"
        print_line(console, f"  {escape(a.statement)} ({escape(a.file)}): {mark}: {escape(a.why)}")


def run(args) -> int:
    """Execute ``pyfed conform``; 0 conforms, 1 deviates, 2 broken adapter or bad input."""
    from ..conform import conform, load_adapter, resolve
    from ..conform.statements import applicable_statements
    from ..errors import check_int, check_output_file

    check_int("--seed", args.seed, minimum=0)
    if args.json is not None:
        check_output_file("--json", args.json)
    adapter = load_adapter(args.adapter)
    algorithm, option, mode = resolve(adapter, args.algorithm, args.option, args.mode)
    report = conform(adapter, algorithm, option, mode, seed=args.seed, eta_g=getattr(args, "eta_g", None),
                     precision=getattr(args, "precision", None))
    console = make_console()
    render_report(console, report, args.adapter)
    applicable = applicable_statements(report)
    at = report.conforms_at_eta_g
    if report.conforms:
        print_line(console, f"[bold green]{escape(args.adapter)} conforms to {escape(report.label())}[/bold green] "
                            f"on all {len(report.rungs)} rungs")
    elif at is not None:
        print_line(console, f"[bold yellow]{escape(args.adapter)} conforms to {escape(report.label(eta_g=at))}"
                            f"[/bold yellow]: its only deviation is the global step; it was not declared "
                            f"(rerun with --eta-g {rational_str(at)} to claim it)")
    else:
        bad = sum(r.status == "deviates" for r in report.rungs)
        print_line(console, f"[bold red]{escape(args.adapter)} deviates from {escape(report.label())}[/bold red] on "
                            f"{bad} of {len(report.rungs)} rungs; no statement about it applies")
    _render_statements(console, applicable)
    if args.json:
        out = report.to_json()
        out["adapter"] = args.adapter
        out["statements"] = [a.to_json() for a in applicable]
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(out, fh, indent=2)
                fh.write("\n")
        except OSError as exc:
            raise InputError("--json", f"cannot write {args.json!r}: {exc.strerror or exc}") from None
        print_line(console, f"JSON report written to {escape(args.json)}")
    return 0 if report.conforms else 1


def run_implementation(args) -> int:
    """``pyfed check --implementation ADAPTER``: conformance first (a deviation: exit 1, no
    statement applies), then the applicable statements and their Monte Carlo rows on the
    implementation's own trajectories (:func:`pyfed.conform.statements.montecarlo_rows`); exit 1
    iff a verdict is violated."""
    from ..conform import conform, load_adapter, resolve
    from ..conform.statements import applicable_statements, montecarlo_rows
    from .render import render_verdicts, summary_counts

    for opt in ("path", "theorem", "out", "replay", "workers", "scheduler"):
        if getattr(args, opt, None):
            raise InputError("--implementation", f"does not combine with --{opt.replace('_', '-')}"
                             if opt != "path" else "does not combine with PATH.lean")
    adapter = load_adapter(args.implementation)
    algorithm, option, mode = resolve(adapter)
    report = conform(adapter, algorithm, option, mode, seed=args.seed)
    console = make_console()
    render_report(console, report, args.implementation)
    if not report.conforms:
        print_line(console, f"[bold red]{escape(args.implementation)} deviates from {escape(report.label())}: none of "
                            "pyfed's statements is about the runs it produces[/bold red]")
        return 1
    applicable = applicable_statements(report)
    _render_statements(console, applicable)
    rows = [a for a in applicable if a.applies and a.montecarlo]
    if not rows:
        print_line(console, "[dim]no Monte Carlo row to run for these statements[/dim]")
        return 0
    reps = args.replicates if args.replicates is not None else (64 if args.quick else 256)
    names = [a.statement.split(".", 1)[1] for a in rows]
    verdicts = montecarlo_rows(adapter, names, replicates=reps, seed=args.seed, option=option or "II")
    render_verdicts(console, verdicts, f"pyfed check --implementation {args.implementation}")
    print_line(console, f"statements on the implementation's trajectories: {summary_counts(verdicts)}")
    if args.json:
        out = {"implementation": args.implementation, "seed": args.seed, "replicates": reps,
               "conformance": report.to_json(), "statements": [a.to_json() for a in applicable],
               "verdicts": [v.to_json() for v in verdicts]}
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(out, indent=2, sort_keys=True, default=str) + "\n")
        except OSError as exc:
            raise InputError("--json", f"cannot write {args.json!r}: {exc.strerror or exc}") from None
        print_line(console, f"JSON report written to {escape(args.json)}")
    return 1 if any(v.status == "violated" for v in verdicts) else 0
