"""``pyfed experiment``: the SCAFFOLD paper's heterogeneity experiment (Table 3) on bundled data.

The experiment itself is :func:`pyfed.experiments.heterogeneity.run_heterogeneity` (SGD, FedAvg,
FedProx and SCAFFOLD on multiclass softmax regression over scikit-learn's digits, N = 100
clients with "s% similarity", S = 20, 1-20 local epochs, eta_l tuned per setting by rounds to a
target test accuracy). This module parses and validates the command line (every flag is checked
before any simulation), shows a progress bar, prints the table in the paper's layout (rounds to
target, spread over seeds, speed-up over SGD, chosen eta_l), the paper's own numbers and which of
its qualitative findings this run reproduces, and writes into ``--out``:

* ``heterogeneity.json`` -- the design, every candidate step size with its per-seed rounds and
  test-accuracy curve, every chosen setting's test accuracy and training loss per round,
  the table and the findings;
* ``heterogeneity_rounds.png`` -- rounds to target against local epochs, one panel per similarity;
* ``heterogeneity_curves_E{e}.png`` -- for each epoch count e, test accuracy (top) and training
  loss minus f* (bottom) against rounds, one column per similarity, mean over seeds with the
  seeds' range shaded.

Exit status 0 (a report, not a check); 2 for bad input.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

import numpy as np
from rich.markup import escape

from ..errors import InputError
from ..experiments.heterogeneity import (
    METHOD_LABELS,
    PAPER_TABLE3,
    HeterogeneityConfig,
    HeterogeneityResult,
    bound_text,
    default_config,
    run_heterogeneity,
    validate_config,
    work_units,
)
from . import COMMAND_HELP

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "config_from_args", "FLAG_NAMES", "write_outputs", "plot_rounds", "plot_curves"]

#: Configuration field -> command-line flag (error messages name the flag).
FLAG_NAMES = {"methods": "--methods", "similarities": "--similarities", "epochs": "--epochs",
              "eta_grid": "--eta-grid", "replicates": "--seeds", "seed": "--seed", "target": "--target",
              "cap": "--cap", "data_seed": "--data-seed", "N": "--N", "S": "--S", "lam": "--lam",
              "n_test": "--n-test", "prox_mu": "--prox-mu"}

COLORS = {"sgd": "black", "scaffold": "tab:blue", "fedavg": "tab:orange", "fedprox": "tab:green"}


def register(subparsers) -> None:
    """Add the ``experiment`` subcommand to an argparse ``subparsers`` object (sets ``func=run``)."""
    full = default_config()
    quick = default_config(quick=True)
    p = subparsers.add_parser(
        "experiment",
        help=COMMAND_HELP["experiment"],
        description="SGD, FedAvg, FedProx (mu = 1) and SCAFFOLD (option II) on softmax regression over "
                    "scikit-learn's digits split among N = 100 clients with s% similarity, S = 20 per round, "
                    "eta_g = 1, 5 local steps per epoch (minibatches of 0.2 of the local data); eta_l is chosen "
                    "per setting from a grid by rounds to the target test accuracy. Prints the table in the "
                    "paper's layout and writes heterogeneity.json and PNG plots into --out.")
    p.add_argument("--quick", action="store_true",
                   help=f"reduced grid (similarities {_csv(quick.similarities)}, epochs {_csv(quick.epochs)}, "
                        f"eta_l {_csv(quick.eta_grid)}, {quick.replicates} seeds, cap {quick.cap}); under a minute")
    p.add_argument("--out", default="experiment-out", metavar="DIR",
                   help="directory for heterogeneity.json and the PNG plots (default ./experiment-out)")
    p.add_argument("--methods", metavar="LIST", help=f"comma-separated subset of {_csv(full.methods)} (default all)")
    p.add_argument("--similarities", metavar="LIST",
                   help=f"similarity levels in percent (default {_csv(full.similarities)})")
    p.add_argument("--epochs", metavar="LIST", help=f"local epochs, integers >= 1 (default {_csv(full.epochs)})")
    p.add_argument("--eta-grid", dest="eta_grid", metavar="LIST",
                   help=f"local step sizes tried per setting (default {_csv(full.eta_grid)})")
    p.add_argument("--seeds", type=int, metavar="R", help=f"seeds (vectorised replicates) per setting "
                                                          f"(default {full.replicates})")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulations (default 0)")
    p.add_argument("--data-seed", dest="data_seed", type=int, default=0,
                   help="seed of the test split and the client splits (default 0)")
    p.add_argument("--target", help=f"target test accuracy in (0, 1] (default {float(full.target):g})")
    p.add_argument("--cap", type=int, help=f"round cap (default {full.cap})")
    from ..resources import add_limit_arguments
    add_limit_arguments(p)
    p.set_defaults(func=run)


def _csv(values) -> str:
    return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def _list(flag: str, text, convert, what: str = "a number") -> tuple:
    items = [t.strip() for t in str(text).split(",")]
    if not any(items):
        raise InputError(flag, "needs at least one value (a comma-separated list)")
    if any(t == "" for t in items):
        raise InputError(flag, f"has an empty entry in {text!r} (use a comma-separated list such as 1,5,10)")
    out = []
    for t in items:
        try:
            out.append(convert(t))
        except (ValueError, ZeroDivisionError):
            raise InputError(flag, f"cannot read {t!r} as {what}") from None
    return tuple(out)


def _size_range(sizes) -> str:
    """``"15"`` when every client holds the same number of samples, else ``"12-18"``."""
    lo, hi = sizes
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def _real(t: str) -> float:
    """A step size written as a decimal or a fraction (``0.05``, ``1/20``); the experiment runs
    in floating point. ``inf``/``nan`` pass through to the config's validation."""
    try:
        return float(Fraction(t))
    except ValueError:
        return float(t)


def _int(t: str) -> int:
    f = Fraction(t)
    if f.denominator != 1:
        raise ValueError(t)
    return int(f)


def config_from_args(args) -> HeterogeneityConfig:
    """The validated :class:`HeterogeneityConfig` of the command line (InputError names the flag)."""
    base = default_config(quick=args.quick)
    kw = {}
    if args.methods is not None:
        kw["methods"] = tuple(m.strip().lower() for m in str(args.methods).split(","))
    if args.similarities is not None:
        kw["similarities"] = _list("--similarities", args.similarities, Fraction)
    if args.epochs is not None:
        kw["epochs"] = _list("--epochs", args.epochs, _int, "an integer")
    if args.eta_grid is not None:
        kw["eta_grid"] = _list("--eta-grid", args.eta_grid, _real)
    if args.seeds is not None:
        kw["replicates"] = args.seeds
    if args.target is not None:
        try:
            kw["target"] = Fraction(str(args.target))
        except (ValueError, ZeroDivisionError):
            raise InputError("--target", f"must be an accuracy in (0, 1], got {args.target!r}") from None
    if args.cap is not None:
        kw["cap"] = args.cap
    kw["seed"], kw["data_seed"] = args.seed, args.data_seed
    cfg = HeterogeneityConfig(**{**base.__dict__, **kw})
    return validate_config(cfg, FLAG_NAMES)


def _prepare_out(out: str) -> str:
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise InputError("--out", f"cannot create directory {out!r}: {exc.strerror or exc}") from None
    probe = os.path.join(out, ".pyfed-write-test")
    try:
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write("")
        os.remove(probe)
    except OSError as exc:
        raise InputError("--out", f"cannot write into {out!r}: {exc.strerror or exc}") from None
    return out


def run(args) -> int:
    """Run the experiment from parsed arguments; print the table and findings, write the files.

    Every flag and ``--out`` are checked before any simulation (InputError naming the flag,
    exit status 2 from :func:`pyfed.cli.main`). Returns 0.
    """
    from ..resources import limits_from_args, refuse_if_over
    from . import make_console
    from .display import Stages

    cfg = config_from_args(args)
    cost, option = experiment_cost(cfg, args.quick)
    refuse_if_over(cost, limits_from_args(args), option)
    out = _prepare_out(args.out)
    console = make_console()
    with Stages("pyfed experiment", total=work_units(cfg)) as stages:
        def tick(advance, description):     # a finished unit (a setting's step size, its curve), or a note
            if advance:
                stages.complete(description)
            else:
                stages.note(description)

        res = run_heterogeneity(cfg, progress=tick, names=FLAG_NAMES)
    paths = write_outputs(res, out)     # files first: never lost to an error while printing
    render(console, res)
    for p in paths:
        console.print(f"written: {escape(str(p))}", highlight=False)
    return 0


#: Configuration fields whose size the resource model weighs, by flag.
SIZE_FIELDS = {"--seeds": "replicates", "--cap": "cap", "--epochs": "epochs", "--eta-grid": "eta_grid",
               "--similarities": "similarities", "--methods": "methods"}


def experiment_cost(cfg: HeterogeneityConfig, quick: bool = False):
    """(estimated :class:`pyfed.resources.Cost`, option to lower) of running ``cfg``
    (:func:`pyfed.resources.experiment`); the option named is the size flag whose value, reset to
    its default, lowers the estimate most."""
    import dataclasses

    from .. import resources

    base = default_config(quick=quick)

    def estimate(**kw):
        return resources.experiment(dataclasses.replace(cfg, **{SIZE_FIELDS[k]: v for k, v in kw.items()}))

    values = {k: getattr(cfg, f) for k, f in SIZE_FIELDS.items()}
    defaults = {k: getattr(base, f) for k, f in SIZE_FIELDS.items()}
    return estimate(**values), resources.blame(estimate, values, defaults)


# ----------------------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------------------

def render(console, res: HeterogeneityResult) -> None:
    """Print the table (ours), the paper's Table 3, the findings and a summary of the design."""
    from rich.table import Table

    from .display import print_table

    cfg = res.config
    info = next(iter(res.problems.values()))
    t = Table(title=escape(f"Rounds to {float(cfg.target):g} test accuracy on {cfg.dataset} (softmax regression), "
                    f"mean over {cfg.replicates} seeds [range] (speed-up over SGD), eta_l chosen"),
              caption=f"N={cfg.N}, S={cfg.S}, eta_g={cfg.eta_g:g}, {cfg.steps_per_epoch} local steps per epoch, "
                      f"minibatch {info['b']} of {_size_range(info['client_sizes'])} local samples; "
                      f"SGD: one step per round on {info['sgd_batch_per_client']} samples per client; "
                      f"'{cfg.cap}+': not reached within {cfg.cap} rounds; * eta_l at the edge of the grid "
                      f"{_csv(cfg.eta_grid)}")
    t.add_column("method")
    t.add_column("epochs", justify="right")
    for sim in cfg.similarities:
        t.add_column(f"{sim}% similarity", justify="right")
    for row in res.table():
        cells = []
        for sim in cfg.similarities:
            c = row["cells"][str(sim)]
            spread = f" [{c['spread']}]" if c["spread"] else ""
            sp = f" ({c['speedup']['text']})" if c["speedup"]["text"] else ""
            star = "*" if c["eta_at_grid_edge"] else ""
            cells.append(escape(f"{c['text']}{spread}{sp}  eta_l={c['eta']:g}{star}"))
        t.add_row(METHOD_LABELS[row["method"]], "1 step" if row["method"] == "sgd" else str(row["epochs"]), *cells)
    print_table(console, t)
    print_table(console, paper_table())
    marks = {"reproduced": "[bold green]reproduced[/]", "not reproduced": "[bold red]not reproduced[/]",
             "not tested": "[yellow]not tested[/]"}
    console.print("The paper's qualitative findings on this run:")
    for f in res.findings():
        console.print(f"  {marks[f['verdict']]}: {f['claim']}", highlight=False)
        console.print(f"    [dim]{escape(f['evidence'])}[/dim]", highlight=False)
    console.print(f"target {float(cfg.target):g} = {res.target_correct}/{info['n_test']} test rows; "
                  f"x* (the regularised optimum, lam={cfg.lam:g}) classifies {info['x_star_test_correct']}/"
                  f"{info['n_test']} = {info['x_star_test_accuracy']:.3f}; f* = {info['f_star']:.6g}; "
                  f"beta = {float(info['beta']):.4g} (certified), mu = {float(info['mu']):g}", highlight=False)
    console.print(f"{len(res.settings)} settings, {sum(len(s.candidates) for s in res.settings)} step sizes scored, "
                  f"{res.local_steps:,} local steps simulated (x {cfg.replicates} seeds vectorised) "
                  f"in {res.seconds:.1f} s", highlight=False)


def paper_table():
    """The paper's Table 3 (EMNIST, target 0.5) as a rich Table, for comparison."""
    from rich.table import Table

    pt = Table(title=f"Karimireddy et al. (2020), Table 3: rounds to {PAPER_TABLE3['target']} test accuracy on "
                     f"{PAPER_TABLE3['dataset']} (speed-up over SGD)",
               caption=f"FedProx (mu = 1): {PAPER_TABLE3['fedprox']}")
    pt.add_column("method")
    pt.add_column("epochs", justify="right")
    for sim in PAPER_TABLE3["similarities"]:
        pt.add_column(f"{sim}% similarity", justify="right")
    sgd = PAPER_TABLE3["rows"][("sgd", 1)]
    for (m, e), vals in PAPER_TABLE3["rows"].items():
        cells = []
        for v, g in zip(vals, sgd):
            if v is None:      # not reached in 1000 rounds: the speed-up is below g/1000, rounded up
                cells.append(f"1000+ (<{bound_text(Fraction(g, 1000), 'up')}×)")
            else:
                cells.append(f"{v} ({g / v:.2g}×)" if g / v < 10 else f"{v} ({g / v:.0f}×)")
        pt.add_row(METHOD_LABELS[m], "1" if m == "sgd" else str(e), *cells)
    return pt


def write_outputs(res: HeterogeneityResult, out: str) -> list:
    """Write heterogeneity.json and the PNG plots into ``out``; returns the paths."""
    paths = []
    path = os.path.join(out, "heterogeneity.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(res.to_json(), fh, separators=(",", ":"))
        fh.write("\n")
    paths.append(path)
    paths.append(plot_rounds(res, os.path.join(out, "heterogeneity_rounds.png")))
    for e in res.config.epochs:
        paths.append(plot_curves(res, e, os.path.join(out, f"heterogeneity_curves_E{e}.png")))
    return paths


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


#: Size of every PNG in inches per panel and dpi (the tests check the pixel size).
PANEL_INCHES = (4.6, 3.4)
DPI = 100


def plot_rounds(res: HeterogeneityResult, path: str) -> str:
    """Rounds to target against local epochs (log axis), one panel per similarity; mean over seeds
    with the seeds' range as error bars; a seed that never reached the target is drawn at the cap
    with an upward triangle; SGD (one step per round) as a horizontal line. Returns ``path``."""
    plt = _pyplot()
    cfg = res.config
    sims = cfg.similarities
    fig, axes = plt.subplots(1, len(sims), figsize=(PANEL_INCHES[0] * len(sims), PANEL_INCHES[1]),
                             dpi=DPI, squeeze=False, sharey=True)
    for ax, sim in zip(axes[0], sims):
        sgd = res.setting("sgd", sim)
        if sgd is not None:
            vals = [r if r is not None else cfg.cap for r in sgd.rounds]
            ax.axhline(float(np.mean(vals)), color=COLORS["sgd"], ls="--", lw=1.2, label="SGD (1 step/round)")
            ax.axhspan(min(vals), max(vals), color=COLORS["sgd"], alpha=0.08)
        for m in cfg.methods:
            if m == "sgd":
                continue
            xs, ys, lo, hi, cens = [], [], [], [], []
            for e in cfg.epochs:
                s = res.setting(m, sim, e)
                vals = [r if r is not None else cfg.cap for r in s.rounds]
                xs.append(e)
                ys.append(float(np.mean(vals)))
                lo.append(ys[-1] - min(vals))
                hi.append(max(vals) - ys[-1])
                cens.append(not s.complete())
            ax.errorbar(xs, ys, yerr=[lo, hi], color=COLORS[m], marker="o", ms=4, capsize=3, lw=1.4,
                        label=METHOD_LABELS[m])
            cx = [x for x, c in zip(xs, cens) if c]
            if cx:
                ax.plot(cx, [cfg.cap] * len(cx), "^", color=COLORS[m], ms=9)
        ax.axhline(cfg.cap, color="0.5", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(list(cfg.epochs))
        ax.set_xticklabels([str(e) for e in cfg.epochs])
        ax.minorticks_off()
        ax.set_xlabel("local epochs")
        ax.set_title(f"{sim}% similarity", fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(f"rounds to {float(cfg.target):g} test acc.")
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.suptitle(f"{cfg.dataset}: rounds to target (mean and range over {cfg.replicates} seeds; "
                 f"triangle: not reached within {cfg.cap})", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def plot_curves(res: HeterogeneityResult, epochs: int, path: str) -> str:
    """Test accuracy (top row) and training loss minus f* (bottom row, log axis) against rounds
    for SGD and every local method at ``epochs`` local epochs, one column per similarity; mean
    over seeds, the seeds' range shaded; the target as a dashed line. Returns ``path``."""
    plt = _pyplot()
    cfg = res.config
    sims = cfg.similarities
    fig, axes = plt.subplots(2, len(sims), figsize=(PANEL_INCHES[0] * len(sims), 2 * PANEL_INCHES[1]),
                             dpi=DPI, squeeze=False)
    for col, sim in enumerate(sims):
        f_star = res.problems[sim]["f_star"]
        n_test = res.problems[sim]["n_test"]
        top, bot = axes[0][col], axes[1][col]
        for m in cfg.methods:
            s = res.setting("sgd", sim) if m == "sgd" else res.setting(m, sim, epochs)
            if s is None:
                continue
            r = np.arange(s.curve_horizon + 1)
            acc = s.test_correct / n_test
            label = f"{METHOD_LABELS[m]} ($\\eta_l$={s.chosen.eta:g})"
            top.plot(r, acc.mean(axis=0), color=COLORS[m], lw=1.3, label=label)
            top.fill_between(r, acc.min(axis=0), acc.max(axis=0), color=COLORS[m], alpha=0.15, lw=0)
            with np.errstate(all="ignore"):
                gap = np.where(np.isfinite(s.train_loss), s.train_loss - f_star, np.nan)
                gap = np.maximum(gap, 1e-12)
                bot.plot(r, np.nanmean(gap, axis=0) if np.isfinite(gap).any() else gap[0], color=COLORS[m], lw=1.3)
                if np.isfinite(gap).any():
                    bot.fill_between(r, np.nanmin(gap, axis=0), np.nanmax(gap, axis=0), color=COLORS[m],
                                     alpha=0.15, lw=0)
        top.axhline(float(cfg.target), color="tab:red", ls="--", lw=1, label=f"target {float(cfg.target):g}")
        top.set_ylim(max(0.0, float(cfg.target) - 0.25), 1.0)
        top.set_title(f"{sim}% similarity", fontsize=11)
        top.set_ylabel("test accuracy")
        top.grid(True, alpha=0.3)
        bot.set_yscale("log")
        bot.set_xlabel("rounds")
        bot.set_ylabel("training loss f(x_r) - f*")
        bot.grid(True, alpha=0.3)
        top.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{cfg.dataset}: {epochs} local epoch{'s' if epochs != 1 else ''} "
                 f"({cfg.steps_per_epoch * epochs} local steps; SGD: 1 step per round); "
                 f"mean over {cfg.replicates} seeds, range shaded", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def png_size(config: HeterogeneityConfig, kind: str) -> tuple:
    """(width, height) in pixels of the PNG ``kind`` ("rounds" or "curves") for ``config``."""
    w = round(PANEL_INCHES[0] * len(config.similarities) * DPI)
    h = round(PANEL_INCHES[1] * DPI * (1 if kind == "rounds" else 2))
    return w, h
