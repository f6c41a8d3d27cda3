"""Templates: texts with the subject slot ``[X]`` and the object slot ``[Y]``, each exactly once
(BEAR's templates, LAMA's manual ones, LPAQA's prompts; filled by
:func:`calib.scoring.statements.fill_template`)."""

from __future__ import annotations

from calib.data.errors import DataFormatError

SUBJECT, OBJECT = "[X]", "[Y]"
SLOTS: tuple[str, ...] = (SUBJECT, OBJECT)


def missing_slot(text: str) -> str | None:
    """The first slot that ``text`` does not hold exactly once, or ``None`` if it holds both."""
    return next((slot for slot in SLOTS if text.count(slot) != 1), None)


def check_template(
    path, text, line: int | None = None, field: str | None = None, name: str | None = None
) -> str:
    """Return ``text`` if it is a string holding ``[X]`` and ``[Y]`` exactly once each.

    Otherwise raise :class:`~calib.data.errors.DataFormatError` naming ``path``, ``line`` and
    ``field`` (and the template's ``name`` where it has one).
    """
    if not isinstance(text, str):
        what = f"template {name!r}" if name else "a template"
        raise DataFormatError(
            path, f"{what} must be a string, got {text!r}", line=line, field=field
        )
    slot = missing_slot(text)
    if slot is not None:
        what = f"template {name!r} = {text!r}" if name else f"template {text!r}"
        raise DataFormatError(path, f"{what} must hold {slot} exactly once", line=line, field=field)
    return text
