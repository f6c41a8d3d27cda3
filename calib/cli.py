"""The ``calib`` command: ``calib models | plan | score | run | book``.

Each subcommand is a thin wrapper; the work lives in the module it names.
"""

from __future__ import annotations

import argparse
import errno
import sys


def _models(args: argparse.Namespace) -> int:
    from calib.models.listing import print_registry

    print_registry()
    return 0


def _option_problem(args: argparse.Namespace, names: tuple[str, ...]) -> str | None:
    """The first of the options ``names`` (attributes of ``args``) whose value is refused, as
    one line naming the option, its value and what was expected; ``None``: all are fine.
    Checked before any data or model is read."""
    from calib.book.constraints import above, at_least, one_of, value_problem
    from calib.data.bear import template_names
    from calib.models.loading import DTYPE_NAMES, device_problem
    from calib.settings import cache_problem

    checks = {
        "per_relation": lambda v: value_problem("per_relation", v),
        "seed": lambda v: value_problem("seed", v),
        "token_budget": at_least(1),
        "memory_gib": above(0),
        "dtype": one_of(DTYPE_NAMES),
        "device": lambda v: device_problem(v, here=getattr(args, "ray", None) is None),
        "cache_dir": lambda v: cache_problem(v) if v is not None else None,
    }
    for name in names:
        value = getattr(args, name)
        if name == "templates":
            try:
                template_names(value)
                problem = None
            except ValueError as exc:
                problem = str(exc)
        else:
            problem = checks[name](value)
        if problem:
            return f"--{name.replace('_', '-')} {value!r}: {problem}"
    return cache_problem() if "cache_dir" in names and args.cache_dir is None else None


def _plan(args: argparse.Namespace) -> int:
    from calib.models.locate import model_problem
    from calib.models.registry import get_spec
    from calib.scoring.memory import print_plans

    problem = _option_problem(args, ("memory_gib", "dtype"))
    for name in args.model if args.model != ["all"] else []:
        if problem is None and get_spec(name) is None:  # the registry's plan without a hub
            problem = model_problem(name)
    if problem:
        print(f"calib plan: {problem}", file=sys.stderr)
        return 2
    return print_plans(args.model, int(args.memory_gib * 2**30), args.dtype)


#: the options of ``calib score`` checked before anything is read (``_option_problem``)
SCORE_OPTIONS = (
    "templates",
    "per_relation",
    "seed",
    "device",
    "dtype",
    "token_budget",
    "cache_dir",
)


def _score(args: argparse.Namespace) -> int:
    """Score BEAR with the cache, say where the scores are and how accurate Base is."""
    import time

    from calib.confidence.estimators import base
    from calib.confidence.metrics import accuracy
    from calib.confidence.reductions import sentence_scores
    from calib.interrupt import exit_code, stop_on_signals
    from calib.models.loading import ModelLoadError
    from calib.models.locate import model_problem
    from calib.scoring.cluster import ClusterError, totals
    from calib.scoring.run import score_bear, score_store
    from calib.settings import CacheWriteError

    rels = [r.strip() for r in args.relations.split(",")] if args.relations else None
    before = totals()
    t0 = time.time()
    if args.all and args.per_relation is not None:
        print("calib score: --all and --per-relation exclude each other", file=sys.stderr)
        return 2
    problem = _option_problem(args, SCORE_OPTIONS) or model_problem(args.model)
    if problem:
        print(f"calib score: {problem}", file=sys.stderr)
        return 2
    try:
        size = _size_line(args, rels)
    except (FileNotFoundError, ValueError) as exc:
        print(f"calib score: {exc}", file=sys.stderr)
        return 2
    whole = args.per_relation is None and rels is None
    if whole and not args.all and _device_type(args.device) == "cpu":
        print(
            f"calib score: no --per-relation given, so this would score all of BEAR: {size}. "
            f"On a CPU pass --per-relation N for a seeded sample of N instances per relation "
            f"(e.g. --per-relation 10), or --all to score all of it.",
            file=sys.stderr,
        )
        return 2
    print(f"[calib] {size}", flush=True)
    try:
        with stop_on_signals():  # Ctrl-C / SIGTERM: stop at the next forward pass
            scores = score_bear(
                args.model,
                args.templates,
                args.per_relation,
                args.seed,
                rels,
                data_dir=args.data_dir,
                cache_dir=args.cache_dir,
                device=args.device,
                dtype=args.dtype,
                ray=args.ray,
                token_budget=args.token_budget,
            )
    except (ModelLoadError, FileNotFoundError, ValueError, ClusterError) as exc:
        print(f"calib score: {exc}", file=sys.stderr)
        return 2
    except CacheWriteError as exc:
        print(f"calib score: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # calib.scoring.run.ScoringInterrupted, mostly
        _interrupted(getattr(exc, "store", None), args, exit_code(exc))
        return exit_code(exc)
    store = score_store(
        args.model, "bear", cache_dir=args.cache_dir, dtype=args.dtype, device=args.device
    )
    n_inst = scores.groupby(["relation", "instance"]).ngroups
    print(
        f"{len(scores)} statements ({n_inst} instances x {scores['template'].nunique()} "
        f"templates) in {time.time() - t0:.1f} s"
    )
    print(f"scores: {store.folder}")
    _print_revision(args.model)
    if args.ray is not None:
        _print_ray_totals(before)
    est = base(sentence_scores(scores), templates=None)
    per_instance = scores.groupby(["relation", "instance", "template"])["option"].size()
    print(
        f"accuracy (Base, micro over instances and templates): {accuracy(est['correct']):.3f}; "
        f"chance (mean 1/answer-space size): {(1 / per_instance).mean():.3f}"
    )
    return 0


#: the committed throughput measurements the size line quotes, by device type: (file below
#: the checkout, how to find the rate in it, what was measured)
MEASURED_RATES: dict[str, tuple[str, str]] = {
    "cpu": (
        "benchmarks/results/cpu_smollm2.json",
        "SmolLM2-135M in float32 on the project's 2-core CPU machine",
    ),
    "cuda": (
        "benchmarks/results/gpu_check_h200.json",
        "a 135M SmolLM2-shaped model in bfloat16 on an H200",
    ),
}


def measured_rate(device: str) -> tuple[float, str] | None:
    """Statements per second that ``calib score`` reached on a device of this type, from the
    committed benchmark result (:data:`MEASURED_RATES`), with where it comes from; ``None``
    where this install has no such file (a wheel holds no ``benchmarks/``)."""
    import json
    from pathlib import Path

    if device not in MEASURED_RATES:
        return None
    relpath, what = MEASURED_RATES[device]
    path = Path(__file__).resolve().parents[1] / relpath
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if device == "cpu":
        rate = data.get("fast_per_s")
    else:
        rows = [r for r in data.get("throughput", []) if "bfloat16" in str(r.get("dtype"))]
        rate = rows[0].get("fast_per_s") if rows else None
    return (float(rate), f"{what}, {relpath}") if rate else None


def _device_type(device: str) -> str:
    from calib.models.loading import device_type

    return device_type(device)


def _human_seconds(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _size_line(args: argparse.Namespace, relations: list[str] | None) -> str:
    """How many statements ``calib score`` is asked to score (instances x answer options x
    templates of the BEAR sample, counted from the data without building them), and the time
    that takes at the measured rate of this device type (:func:`measured_rate`)."""
    from calib.data.bear import load_bear, template_names

    bear = load_bear(args.data_dir, relations=relations)
    sample = bear.sample(args.per_relation, args.seed)
    options = {r: len(rel.answer_labels) for r, rel in sample.relations.items()}
    instances = len(sample.instances)
    templates = len(template_names(args.templates))
    statements = int(sample.instances["relation"].map(options).sum()) * templates

    def n(count: int, word: str) -> str:
        return f"{count:,} {word}{'' if count == 1 else 's'}"

    text = (
        f"{n(statements, 'statement')} ({n(instances, 'instance')} of "
        f"{n(len(options), 'relation')} x {n(templates, 'template')}, one per answer option)"
    )
    device = _device_type(args.device)
    where = {"cpu": "CPU", "cuda": "GPU"}.get(device, device)
    rate = measured_rate(device)
    if rate is None:
        return text + f"; no measured rate for a {where} in this install to estimate the time"
    per_s, source = rate
    return (
        text + f"; about {_human_seconds(statements / per_s)} on a {where} at "
        f"{per_s:.0f} statements/s (measured for {source}; larger models take longer), "
        f"less the units already stored"
    )


def _print_revision(model: str) -> None:
    """For a hub model: the revision asked for and the commit the scores are keyed by."""
    from calib.models.locate import model_ref, resolved_revision

    ref = model_ref(model)
    if ref.kind == "hub":
        commit = resolved_revision(ref.source, ref.revision) or "not in the local cache"
        print(f"revision: {ref.revision or 'default branch'} of {ref.source}, resolved to {commit}")


def _print_ray_totals(before) -> None:
    """What the cluster did in this command (the totals since ``before``)."""
    from calib.scoring.cluster import totals

    now = totals()
    d = {k: getattr(now, k) - getattr(before, k) for k in vars(now)}
    print(
        f"ray: {d['units']} unit(s), {d['statements']} statement(s) on the cluster; "
        f"{d['workers']} worker(s) started, {d['loads']} model load(s)"
    )


def _add_ray_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        default=None,
        metavar="ADDRESS",
        help=f"score {what} on a Ray cluster (ADDRESS, or auto: join the local "
        "cluster or start one; needs pip install 'calib[cluster]'; "
        "see book/scaling.md)",
    )


def _interrupted(store, args: argparse.Namespace, code: int = 130) -> None:
    """Say, after Ctrl-C (exit ``code`` 130) or SIGTERM (143), where the scores went and how
    to resume."""
    import shlex

    lines = [
        "",
        "calib score: interrupted."
        if code == 130
        else f"calib score: interrupted (SIGTERM, exit {code}).",
    ]
    if store is not None and store.chunks():
        lines.append(
            f"The scores finished so far are stored: {store.units()} unit(s) (instance "
            f"x template) in {len(store.chunks())} chunk(s) in {store.folder}"
        )
    else:
        lines.append("No scores of this run were stored yet.")
    lines.append("Run the same command again to resume; stored units are not scored again:")
    lines.append("  calib " + shlex.join(args.argv))
    print("\n".join(lines), file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    if args.help or args.chapter is None:
        return _run_help(args)
    from calib.book import cli_run

    return cli_run(args)


def _run_help(args: argparse.Namespace) -> int:
    """``calib run [CHAPTER] --help``: the usage, and with a chapter its parameters with the
    values ``--profile`` gives them (the notebook's default named where it differs)."""
    from calib.book import BookError, chapter_parameters, describe_parameters, get_profile
    from calib.book.commands import usage_status

    if args.chapter is None and not args.help:
        args.parser.print_usage(sys.stderr)
        print("calib run: error: the following arguments are required: chapter", file=sys.stderr)
        return 2
    print(args.parser.format_help().rstrip())
    if args.chapter is None:
        print("\n`calib run CHAPTER --help [--profile P]` lists the chapter's parameters.")
        return 0
    try:
        from calib.book.layout import book_root

        root = book_root(args.root)
        declared = chapter_parameters(args.chapter, root)
        profile = get_profile(args.profile)
        values = profile.defaults_for(args.chapter, declared)
    except BookError as exc:
        print(f"calib run: {exc}", file=sys.stderr)
        return usage_status(exc)
    print(
        f"\nparameters of {args.chapter} with profile {profile.name!r} (name: type = value; "
        f"set one with -p NAME VALUE):"
    )
    print(describe_parameters(declared, values, profile.name))
    return 0


def _book(args: argparse.Namespace) -> int:
    from calib.book import cli_book

    return cli_book(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="calib", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("models", help="list the model registry and what is available here")
    p.set_defaults(func=_models)

    p = sub.add_parser("plan", help="dry run: the device memory of each pass, from the config")
    p.add_argument(
        "--model", nargs="+", required=True, help="registry names, folders or hub ids; all"
    )
    p.add_argument("--memory-gib", type=float, default=139.0, help="device memory (H200: 139)")
    p.add_argument("--dtype", default="bfloat16")
    p.set_defaults(func=_plan)

    p = sub.add_parser("score", help="score a model on BEAR (cached)")
    p.add_argument(
        "--model",
        required=True,
        help="registry name, hub id or local folder; a hub model pinned to a "
        "revision as NAME@REVISION (commit hash, branch or tag)",
    )
    p.add_argument(
        "--templates",
        default="paraphrase-0..4",
        help="template names, ranges (paraphrase-0..4) or groups (all, linguistic)",
    )
    p.add_argument(
        "--per-relation",
        type=int,
        default=None,
        help="seeded sample of N instances per relation (default: all, which on a CPU needs --all)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="score every BEAR instance (1 million statements for five templates: hours on "
        "a CPU; the size and time are printed first)",
    )
    p.add_argument("--relations", default=None, help="comma-separated relation ids")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto", help="cpu, cuda, cuda:1 ... (default: auto)")
    p.add_argument(
        "--dtype",
        default=None,
        help="float32, bfloat16, float16 (default: the registry's, else bfloat16 on "
        "a GPU; on a CPU bfloat16 for the embedded models where the CPU has "
        "AVX512-BF16 or AMX, float32 otherwise)",
    )
    p.add_argument(
        "--token-budget",
        type=int,
        default=None,
        metavar="N",
        help="tokens per forward pass, padding included (default: from the device: "
        "2048 on a CPU, from free memory on a GPU); changes no score",
    )
    p.add_argument("--cache-dir", default=None, help="score cache (default: $CALIB_CACHE_DIR)")
    p.add_argument("--data-dir", default=None, help="data root (default: $CALIB_DATA_DIR)")
    _add_ray_flag(p, "the missing units")
    p.set_defaults(func=_score)

    p = sub.add_parser(
        "run", help="execute one chapter with papermill, then rebuild the book", add_help=False
    )
    p.add_argument(
        "chapter",
        nargs="?",
        help="chapter name, e.g. calibration (notebooks/<name>.md); "
        "`calib run CHAPTER --help` lists its parameters",
    )
    p.add_argument(
        "-h",
        "--help",
        action="store_true",
        help="show this help (with CHAPTER: its parameters with --profile's values) and exit",
    )
    p.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help='a parameter; VALUE is parsed as YAML (20, null, \'["a", "b"]\')',
    )
    p.add_argument("--profile", default="cpu", help="quick, cpu or paper (default: cpu)")
    p.add_argument("--no-build", action="store_true", help="do not rebuild the book afterwards")
    p.add_argument("--strict", action="store_true", help="treat Sphinx warnings as errors")
    p.add_argument("--root", default=None, help="book root (default: the repository root)")
    _add_ray_flag(p, "the chapter's missing units")
    p.set_defaults(func=_run, parser=p)

    p = sub.add_parser("book", help="execute every chapter of _toc.yml and build the book")
    p.add_argument("--profile", default="cpu", help="quick, cpu or paper (default: cpu)")
    p.add_argument(
        "--no-execute",
        action="store_true",
        help="only rebuild the HTML from the chapters already executed",
    )
    p.add_argument("--strict", action="store_true", help="treat Sphinx warnings as errors")
    p.add_argument("--root", default=None, help="book root (default: the repository root)")
    _add_ray_flag(p, "the chapters' missing units")
    p.set_defaults(func=_book)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``calib`` command line ``argv`` (default ``sys.argv[1:]``); returns its exit
    code (130 or 143: stopped by Ctrl-C or SIGTERM)."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args.func(args)


#: the exit status of a command whose output's reader went away (128 + SIGPIPE, as a shell
#: reports a command killed by it)
BROKEN_PIPE_CODE = 141


def _reader_gone() -> int:
    """The reader of the output went away (``calib models | head -3``): stop quietly, with
    nothing more written to the closed pipe (Python's own exit would flush into it and print
    "Exception ignored ... BrokenPipeError")."""
    _silence_stdout()
    return BROKEN_PIPE_CODE


def _silence_stdout() -> None:
    """Point the standard output at ``/dev/null``, so that Python's own exit flushes nowhere."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _prog() -> str:
    """``calib`` and its subcommand, as messages begin (``calib score``)."""
    command = next((a for a in sys.argv[1:2] if not a.startswith("-")), None)
    return f"calib {command}" if command else "calib"


def _output_failed(exc: OSError) -> bool:
    """Whether ``exc`` came from writing the standard output (``> /dev/full``, an I/O error):
    an error of a write to no named file, after which writing a line there fails too."""
    if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
        return False
    try:
        sys.stdout.write("\n")
        sys.stdout.flush()
    except OSError:
        return True
    return False


#: what a failed write to the standard output looks like
_OUTPUT_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


#: the exit codes of a run stopped by a signal (:func:`calib.interrupt.exit_code`)
STOPPED_CODES = (130, 143)


def entry() -> None:
    """The ``calib`` console command: :func:`main`, then the exit.

    A run stopped by Ctrl-C or SIGTERM has by then stopped its work, released its claims,
    removed its partial files and said where its results are; it then leaves at once
    (``os._exit``, after flushing the output and the logs) instead of through the
    interpreter's teardown of torch, its thread pools and the model, which took 1.3 to 1.8 s
    of the 1.4 to 2.0 s from SIGINT to exit for SmolLM2 on 2 cores
    (``benchmarks/sigint_latency.py``). Not where Ray was used: its exit hook disconnects from
    the cluster (and stops a local one it started).
    """
    if sys.stdout is None:  # started with its output closed (`calib models >&-`)
        print(
            f"{_prog()}: the standard output is closed; redirect it to a file or /dev/null instead",
            file=sys.stderr or sys.__stderr__,
        )
        sys.exit(2)
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        code = _reader_gone()
    except OSError as exc:
        if not _output_failed(exc):
            raise
        _silence_stdout()
        print(f"{_prog()}: cannot write to the standard output: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt as exc:  # before calib's handlers are installed, or after
        from calib.interrupt import exit_code

        code = exit_code(exc)
        print(f"\n{_prog()}: interrupted.", file=sys.stderr)
    if code in STOPPED_CODES and "ray" not in sys.modules:
        import logging
        import os

        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
