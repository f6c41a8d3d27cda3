"""Running one chapter: jupytext -> papermill -> the build tree, atomically.

Ctrl-C or SIGTERM during a run (:mod:`calib.interrupt`) interrupts the chapter's kernel (SIGINT
to its process group, as Jupyter's "interrupt"; the kernel runs in a session of its own, so a
terminal's Ctrl-C reaches this process only); a kernel that has not stopped after
:data:`KERNEL_GRACE_S` seconds (``$CALIB_KERNEL_GRACE_S``), or at a second signal, is killed.
One whose cell has stopped is killed at once, not asked to shut down: it is discarded, and its
cell's own clean-up (claims released, the unfinished chunk dropped) has run. The run then stops
with :class:`calib.interrupt.Interrupted`: the executed notebook is not written (the previous
one stays as it was) and the partial one goes to ``_build/failed/``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from calib.book import downloads, render
from calib.book.constraints import data_problem
from calib.book.layout import (
    FAILED_DIR,
    ChapterDataMissing,
    ChapterFailed,
    Log,
    ParameterError,
    book_root,
    chapter_source,
    executed_path,
)
from calib.book.parameters import (
    cell_differences,
    chapter_unit,
    parameters_cell,
    parse_parameters,
    read_notebook,
    resolve_parameters,
    unit_parameters,
)
from calib.book.profiles import DEFAULT_PROFILE, Profile, get_profile
from calib.book.provenance import provenance
from calib.experiments import records
from calib.experiments.params import plain
from calib.interrupt import Interrupted, check_interrupted, interrupted, stop_on_signals
from calib.settings import EXPORT_ENV

#: the kernel the chapters run in: this very Python (see :func:`kernel_environment`)
KERNEL_NAME = "calib-python3"
_STANDARD_KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
#: seconds an interrupted chapter's kernel gets to stop before it is killed (a scoring cell
#: stops at its next forward pass, :mod:`calib.interrupt`); ``$CALIB_KERNEL_GRACE_S`` sets it.
#: Killing one is safe wherever it is: the score store's chunks and a model's folder are
#: written to temporary names and renamed, a dead holder's claims are found stale, and the
#: chapter's notebook and record are written only after it ends; short, so that Ctrl-C also
#: stops a kernel within a long step with no safe point (a first import of torch, a model
#: load) promptly
KERNEL_GRACE_S = 1.0
KERNEL_GRACE_ENV = "CALIB_KERNEL_GRACE_S"
#: the warning filter (``PYTHONWARNINGS``) a chapter's kernel runs with: tqdm's notebook bars
#: need ipywidgets, and without them ``import tqdm.auto`` (transformers does it) warns
#: "IProgress not found" on every run and on the page of the cell that imported it
QUIET_WARNINGS = "ignore:IProgress not found"
#: how often the waiting thread looks at the kernel and at the signals recorded (seconds)
_POLL_S = 0.2


@contextlib.contextmanager
def kernel_environment(extra: Mapping[str, str] | None = None):
    """Run kernels and Sphinx with this process's Python and ``calib``.

    Puts a kernelspec :data:`KERNEL_NAME` whose ``argv`` is ``sys.executable`` first on
    ``JUPYTER_PATH`` (so a user's own ``python3`` kernelspec cannot swap the interpreter), puts
    the folder holding this ``calib`` first on ``PYTHONPATH``, and sets ``extra``.
    """
    import calib

    package_parent = str(Path(calib.__file__).resolve().parents[1])
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="calib-kernel-") as jupyter_dir:
        spec_dir = Path(jupyter_dir) / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True)
        (spec_dir / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "Python 3 (calib)",
                    "language": "python",
                }
            ),
            encoding="utf-8",
        )
        paths = [
            package_parent,
            *[
                p
                for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                if p and p != package_parent
            ],
        ]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            [jupyter_dir, *[p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]]
        )
        # model-loading progress bars and advisory warnings are noise on a book page, and so
        # is tqdm's "IProgress not found" (its notebook bars need ipywidgets, which the book
        # does not use: calib's own bars are plain text)
        warnings = [w for w in os.environ.get("PYTHONWARNINGS", "").split(",") if w]
        os.environ.update(
            {
                "HF_HUB_DISABLE_PROGRESS_BARS": "1",
                "TRANSFORMERS_VERBOSITY": "error",
                "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
                "PYTHONWARNINGS": ",".join(dict.fromkeys([*warnings, QUIET_WARNINGS])),
            }
        )
        os.environ.update(extra or {})
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _format_value(value) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def rerun_command(chapter: str, profile: str, params: Mapping[str, Any]) -> str:
    """The ``calib run`` command that repeats a run."""
    parts = ["calib", "run", chapter, "--profile", profile]
    for key, value in params.items():
        parts += ["-p", key, _format_value(value)]
    return " ".join(shlex.quote(p) for p in parts)


def write_atomically(nb, target: Path) -> None:
    """Write the notebook ``nb`` to ``target`` through a temporary file and a rename."""
    import nbformat

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            nbformat.write(nb, fh)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _install_record(folder: Path, build: Path, name: str, run: Mapping[str, Any]) -> None:
    """Add ``run`` (profile, command, provenance ...) to the manifest of the record ``folder``
    written by the kernel and install it as the chapter's record in the build
    (:func:`calib.experiments.records.install`: the old record goes only once the new one is
    in place)."""
    manifest = records.read_manifest(folder)
    manifest["run"] = dict(run)
    (folder / records.MANIFEST).write_text(
        json.dumps(manifest, indent=1, default=str), encoding="utf-8"
    )
    records.install(folder, records.record_path(name, build))


def _kernel_grace() -> float:
    try:
        return max(0.0, float(os.environ.get(KERNEL_GRACE_ENV) or KERNEL_GRACE_S))
    except ValueError:
        return KERNEL_GRACE_S


def _signal_kernel(km, signum: int) -> None:
    """Send ``signum`` to the process group of a kernel that papermill started (its own
    session: the kernel and anything it started)."""
    provisioner = getattr(km, "provisioner", None)
    pgid = getattr(provisioner, "pgid", None)
    process = getattr(provisioner, "process", None)
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(OSError):
        if pgid and hasattr(os, "killpg"):
            os.killpg(pgid, signum)
        else:
            process.send_signal(signum)


def _kernel_manager_class(started: list):
    """nbclient's kernel manager class, noting each instance in ``started`` (to interrupt or
    kill its kernel)."""
    from jupyter_client import AsyncKernelManager

    class NotedKernelManager(AsyncKernelManager):
        def __init__(self, *args, **kwargs):
            # local sockets (ZeroMQ over IPC, in a private temporary folder) instead of TCP:
            # nothing else on the machine can connect to the kernel, and it no longer warns
            # "Kernel is running over TCP without encryption" on every run
            self.ipc_dir = tempfile.mkdtemp(prefix="calib-ipc-")
            kwargs.setdefault("transport", "ipc")
            kwargs.setdefault("ip", str(Path(self.ipc_dir) / "kernel"))
            super().__init__(*args, **kwargs)
            started.append(self)

        async def shutdown_kernel(  # type: ignore[override]
            self, now: bool = False, restart: bool = False
        ) -> None:
            # an interrupted run's kernel is discarded once its cell has stopped (the cell's
            # own clean-up has run: claims released, the unfinished chunk dropped): kill it
            # at once rather than ask it to shut down and wait for its interpreter's teardown
            await super().shutdown_kernel(now=now or interrupted() is not None, restart=restart)

    return NotedKernelManager


def _execute_interruptibly(execute, name: str) -> None:
    """Run ``execute(kernel_manager_class)`` (papermill) in a worker thread while this thread
    waits with the signal handlers of :func:`calib.interrupt.stop_on_signals` (nbclient would
    otherwise replace them with its own for the run, and reset them afterwards). After a
    signal the kernel is interrupted, then killed after the grace period (or at a second
    signal), and :class:`~calib.interrupt.Interrupted` is raised once papermill has returned
    (or, should it hang, after another grace period)."""
    check_interrupted()
    kernels: list = []
    outcome: dict = {}

    def target():
        try:
            execute(_kernel_manager_class(kernels))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=target, name=f"papermill-{name}", daemon=True)
    grace = _kernel_grace()
    asked = killed = None
    try:
        worker.start()
        while worker.is_alive():
            worker.join(_POLL_S)
            now = time.monotonic()
            if interrupted() is not None and asked is None:
                asked = now
                for km in kernels:
                    _signal_kernel(km, signal.SIGINT)  # its shutdown then kills it at once
            if asked is not None and killed is None and now - asked >= grace:
                killed = now
                for km in kernels:
                    _signal_kernel(km, signal.SIGKILL)
            if killed is not None and now - killed >= max(grace, 5.0):
                break  # papermill did not return after its kernel died: stop waiting
    except BaseException:  # a second signal (Interrupted) or anything else: end the kernel
        for km in kernels:
            _signal_kernel(km, signal.SIGKILL)
        worker.join(max(grace, 5.0))
        raise
    finally:
        if not worker.is_alive():
            for km in kernels:  # the kernel's sockets
                shutil.rmtree(km.ipc_dir, ignore_errors=True)
    if (signum := interrupted()) is not None:
        raise Interrupted(signum)
    if "error" in outcome:
        raise outcome["error"]


def check_data(name: str, declared) -> None:
    """:class:`~calib.book.layout.ChapterDataMissing` if the data chapter ``name`` reads (told by
    its ``declared`` parameters, :func:`calib.book.constraints.data_problem`) cannot be had:
    found in a second, not once its kernel is running."""
    problem = data_problem(declared)
    if problem:
        raise ChapterDataMissing(f"chapter {name!r} cannot run: {problem}")


def _first_error(nb) -> str:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                return f"{out.get('ename')}: {out.get('evalue')}"
    return ""


def run_chapter(
    name: str,
    profile: str | Profile = DEFAULT_PROFILE,
    params: Mapping[str, Any] | None = None,
    *,
    root: str | os.PathLike | None = None,
    kernel: str = KERNEL_NAME,
    progress: bool = True,
    stream_output: bool = True,
    env: Mapping[str, str] | None = None,
    log: Log | None = print,
) -> Path:
    """Execute ``notebooks/<name>.md`` into ``_build/chapters/<name>.ipynb``.

    Parameters: the profile's defaults overridden by ``params``, checked before execution
    (:func:`~calib.book.parameters.resolve_parameters`). The notebook is converted with jupytext,
    run with papermill (working folder: the book root) and written atomically with a note saying how
    it was run and its provenance (and, for a synthetic profile, that its numbers are placeholders),
    one parameters cell showing the values it ran with, a downloads section
    (:mod:`calib.book.downloads`: its result tables and the score rows it used, written to
    ``_build/downloads/<name>/``), and ``metadata["calib"]`` (with ``provenance`` and
    ``downloads``). A chapter unit (:func:`calib.book.parameters.chapter_unit`) must have a
    parameters cell equal to its ``Params`` (else :exc:`~calib.book.layout.ParameterError` before
    anything runs) and record its result (:func:`calib.experiments.records.record`, into the folder
    :data:`~calib.experiments.records.RECORD_ENV` names for the kernel): the record, with this run's
    profile, command and provenance added to its manifest, is installed as
    ``_build/chapters/<name>.result/`` beside the executed notebook. On failure the previous
    executed notebook and record stay as they were, the partial notebook goes to
    ``_build/failed/<name>.ipynb`` and :exc:`~calib.book.layout.ChapterFailed` is raised; after
    Ctrl-C or SIGTERM the same, with the kernel stopped (see the module docstring), and
    :class:`calib.interrupt.Interrupted` is raised.
    """
    import nbformat
    import papermill as pm
    from papermill.parameterize import parameterize_notebook

    log = log or (lambda _msg: None)
    root = book_root(root)
    prof = get_profile(profile)
    source = chapter_source(name, root)
    nb = read_notebook(source)
    cell = nb.cells[parameters_cell(nb, source)]
    declared = parse_parameters(cell.source, where=f"{source} (parameters cell)")
    unit = chapter_unit(name)
    if unit is not None:
        differ = cell_differences(declared, unit_parameters(unit.Params))
        if differ:
            raise ParameterError(
                f"{source}: the parameters cell differs from "
                f"calib.experiments.{name}.Params, the home of the chapter's "
                f"defaults: " + "; ".join(differ)
            )
    given = dict(params or {})
    values = resolve_parameters(name, declared, prof, given, where=str(source))
    check_data(name, declared)
    unused = [k for k in prof.shared if k not in declared]
    nb.metadata["kernelspec"] = dict(_STANDARD_KERNELSPEC)

    target = executed_path(name, root)
    failed = root / FAILED_DIR / f"{name}.ipynb"
    build = root / "_build"
    build.mkdir(parents=True, exist_ok=True)
    log(
        f"[calib] chapter {name!r} ({source.relative_to(root)}), profile {prof.name!r}: "
        + ", ".join(f"{k}={v!r}" for k, v in values.items())
        + (
            f" (profile defaults not declared by the chapter: {', '.join(unused)})"
            if unused
            else ""
        )
    )
    started = time.time()
    when = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    # the values are injected here, not by papermill: they are checked against the parameters
    # cell already, and papermill's own reading of that cell does not understand annotations
    # such as `int | None` (it warned "Passed unknown parameter" for them on every run)
    nb.metadata["papermill"] = {}
    for c in nb.cells:
        c.metadata.setdefault("tags", [])  # as papermill's own loader does
    # plain lists, not tuples: papermill writes a tuple as the text of its repr
    nb = parameterize_notebook(nb, plain(values), kernel_name=kernel, language="python")
    with tempfile.TemporaryDirectory(dir=build, prefix=f".run-{name}-") as tmp:
        src_ipynb, out_ipynb = Path(tmp) / "input.ipynb", Path(tmp) / f"{name}.ipynb"
        export, recorded = Path(tmp) / "exports", Path(tmp) / "records"
        export.mkdir()
        nbformat.write(nb, src_ipynb)

        def execute(kernel_manager_class) -> None:
            pm.execute_notebook(
                str(src_ipynb),
                str(out_ipynb),
                parameters=None,
                kernel_name=kernel,
                language="python",
                cwd=str(root),
                progress_bar=progress,
                stdout_file=sys.stdout if stream_output else None,
                stderr_file=sys.stderr if stream_output else None,
                kernel_manager_class=kernel_manager_class,
            )

        try:
            with (
                stop_on_signals(),
                kernel_environment(
                    {**(env or {}), EXPORT_ENV: str(export), records.RECORD_ENV: str(recorded)}
                ),
            ):
                _execute_interruptibly(execute, name)
        except Interrupted as exc:
            where = "no partial notebook was written"
            with contextlib.suppress(Exception):  # the partial notebook, if whole
                nbformat.read(out_ipynb, as_version=4)
                failed.parent.mkdir(parents=True, exist_ok=True)
                os.replace(out_ipynb, failed)
                where = f"the partial notebook is {failed}"
            kept = (
                f"the previous {target.relative_to(root)} is unchanged"
                if target.is_file()
                else f"{target.relative_to(root)} was not written"
            )
            raise Interrupted(
                exc.signum,
                f"chapter {name!r} interrupted after "
                f"{time.time() - started:.1f} s and its kernel stopped; {kept}, "
                f"{where}.",
            ) from None
        except Exception as exc:
            detail, where = "", "No partial notebook was written"
            if out_ipynb.is_file():
                partial = nbformat.read(out_ipynb, as_version=4)
                detail = _first_error(partial)
                failed.parent.mkdir(parents=True, exist_ok=True)
                os.replace(out_ipynb, failed)
                where = f"The partial notebook is {failed}"
            kept = (
                f"; the previous {target.relative_to(root)} is unchanged"
                if target.is_file()
                else ""
            )
            raise ChapterFailed(
                f"chapter {name!r} failed after {time.time() - started:.1f} s: "
                f"{detail or type(exc).__name__ + ': ' + str(exc).strip()[:2000]}\n"
                f"{where}{kept}."
            ) from exc
        seconds = time.time() - started
        executed = nbformat.read(out_ipynb, as_version=4)
        result_record = recorded / f"{name}{records.RECORD_SUFFIX}"
        if unit is not None and not (result_record / records.MANIFEST).is_file():
            raise ChapterFailed(
                f"chapter {name!r} ran but recorded no result: a chapter unit's "
                f"notebook calls `records.record(result)` after `run`; the "
                f"previous {target.relative_to(root)} is unchanged"
            )
        manifest = downloads.collect(export, name, root)
        record = provenance(values.get("models") or [], root, seconds=seconds)
        command = rerun_command(name, prof.name, given)
        if unit is not None:
            _install_record(
                result_record,
                root / "_build",
                name,
                {
                    "profile": prof.name,
                    "command": command,
                    "executed": when,
                    "seconds": round(seconds, 2),
                    "given": plain(given),
                    "provenance": record,
                },
            )
    executed.metadata["kernelspec"] = dict(_STANDARD_KERNELSPEC)
    executed.metadata["calib"] = {
        "chapter": name,
        "profile": prof.name,
        "profile_description": prof.description,
        "profile_label": prof.label,
        "synthetic": prof.synthetic,
        "parameters": plain(values),
        "given": plain(given),
        "executed": when,
        "seconds": round(seconds, 2),
        "command": command,
        "provenance": record,
        "downloads": manifest,
    }
    render.show_one_parameters_cell(executed, values)
    note = render.run_note_cell(
        prof,
        command,
        values,
        when,
        record,
        name,
        downloads=True,
        given=given,
        defaults=prof.defaults_for(name, declared),
    )
    render.insert_after_title(executed, note)
    executed.cells.append(render.downloads_cell(name, manifest))
    write_atomically(executed, target)
    with contextlib.suppress(FileNotFoundError):
        failed.unlink()
    log(f"[calib] chapter {name!r} done in {seconds:.1f} s -> {target}")
    return target
