"""The ``calib`` command: ``calib models | plan | score | run | book``.

Each subcommand is a thin wrapper; the work lives in the module it names.
"""

from __future__ import annotations

import argparse
import sys


def _models(args: argparse.Namespace) -> int:
    from calib.models.listing import print_registry

    print_registry()
    return 0


def _plan(args: argparse.Namespace) -> int:
    from calib.scoring.memory import print_plans

    return print_plans(args.model, int(args.memory_gib * 2**30), args.dtype)


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
    problem = model_problem(args.model)
    if problem:
        print(f"calib score: {problem}", file=sys.stderr)
        return 2
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
    from calib.book import cli_run

    return cli_run(args)


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
        help="seeded sample of N instances per relation (default: all)",
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

    p = sub.add_parser("run", help="execute one chapter with papermill, then rebuild the book")
    p.add_argument("chapter", help="chapter name, e.g. calibration (notebooks/<name>.md)")
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
    p.set_defaults(func=_run)

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
    code = main()
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
