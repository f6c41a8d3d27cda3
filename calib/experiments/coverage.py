"""Which of the papers' result sentences the ledger tests: the coverage registry
(:mod:`calib.data.sentences`) joined with the chapters' claims.

Every result sentence of both papers is in the registry with the claims that test it (claims
of the chapters' ``CLAIMS``, or claims it proposes, ``planned``) or the reason it is not a
testable claim. :func:`coverage_table` gives each sentence its status:

* ``tested`` -- every claim it names is a claim of a chapter;
* ``planned`` -- a claim it names is only proposed so far (its rule sketched in the registry);
* ``not a testable claim`` -- it names no claim, and says why (a definition, a description of
  method, an interpretation the numbers cannot test, ...).

:func:`problems` lists what breaks the registry's agreement with the claims (a claim no
sentence names, a key that is neither a claim nor planned, a planned key that is a claim now,
a claim whose quote is not in a sentence naming it); the tests require it empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.data import sentences as registry
from calib.experiments.claims import PAPERS, Claim

#: a sentence's status, in the order the page counts them
STATUSES: tuple[str, ...] = ("tested", "planned", "not a testable claim")


def _claims(claims: Sequence[Claim] | None) -> tuple[Claim, ...]:
    if claims is not None:
        return tuple(claims)
    from calib.experiments import ledger  # the ledger imports this module

    return ledger.all_claims()


def coverage_table(claims: Sequence[Claim] | None = None) -> pd.DataFrame:
    """Every registry sentence of both papers with its status (see the module docstring):
    ``paper``, ``section``, ``quote``, ``reading``, ``status``, ``claims`` (the keys, joined by
    ", "), ``planned`` (those only proposed), ``kind``, ``reason``, ``note``.

    Parameters
    ----------
    claims : sequence of calib.experiments.claims.Claim or None
        The claims (default every chapter's, :func:`calib.experiments.ledger.all_claims`).

    Returns
    -------
    pandas.DataFrame
        One row per sentence, by paper (:data:`calib.experiments.claims.PAPERS` order) in the
        paper's order.
    """
    keys = {c.key for c in _claims(claims)}
    frame = registry.sentences()
    status = []
    for names in frame["claims"]:
        if not names:
            status.append(STATUSES[2])
        elif all(k in keys for k in names):
            status.append(STATUSES[0])
        else:
            status.append(STATUSES[1])
    out = frame.assign(
        status=status,
        claims=[", ".join(k for k in names) for names in frame["claims"]],
        planned=[", ".join(k for k in names if k not in keys) for names in frame["claims"]],
    )
    order = {p: i for i, p in enumerate(PAPERS)}
    out = out.sort_values(["paper", "n"], key=lambda s: s.map(order) if s.name == "paper" else s)
    return out[
        [
            "paper",
            "section",
            "quote",
            "reading",
            "status",
            "claims",
            "planned",
            "kind",
            "reason",
            "note",
        ]
    ].reset_index(drop=True)


def coverage_counts(coverage: pd.DataFrame) -> pd.DataFrame:
    """Per paper, how many sentences the registry lists and how many have each status:
    ``paper``, ``sentences``, then one column per :data:`STATUSES`.

    Parameters
    ----------
    coverage : pandas.DataFrame
        :func:`coverage_table`.

    Returns
    -------
    pandas.DataFrame
        One row per paper.
    """
    rows = []
    for paper, part in coverage.groupby("paper", sort=False):
        row = {"paper": paper, "sentences": len(part)}
        row.update({s: int((part["status"] == s).sum()) for s in STATUSES})
        rows.append(row)
    return pd.DataFrame(rows, columns=["paper", "sentences", *STATUSES])


def problems(claims: Sequence[Claim] | None = None) -> list[str]:
    """Where the registry and the chapters' claims disagree, one line each (empty: they agree).

    Parameters
    ----------
    claims : sequence of calib.experiments.claims.Claim or None
        The claims (default every chapter's).

    Returns
    -------
    list of str
        A claim that no sentence names; a claim whose quote is not within the sentences that
        name it (joined in the paper's order: a quote may run over two); a key a sentence
        names that is neither a claim nor planned; a planned key defined twice, or already a
        claim (drop its sketch from the registry); a planned claim whose paper differs from the
        file's.
    """
    claims = _claims(claims)
    by_key = {c.key: c for c in claims}
    frame = registry.sentences()
    planned = registry.planned_claims()
    out = []
    named: dict[str, list[tuple[str, str]]] = {}
    for paper, quote, names in zip(frame["paper"], frame["quote"], frame["claims"]):
        for k in names:
            named.setdefault(k, []).append((paper, quote))
    planned_keys = set(planned["claim"].unique())
    for key, count in planned["claim"].value_counts().items():
        if count > 1:
            out.append(f"planned claim {key!r} is proposed {count} times (propose it once)")
    for key in sorted(planned_keys & set(by_key)):
        out.append(
            f"planned claim {key!r} is a claim of the {by_key[key].chapter} chapter now: drop "
            f"its 'planned' sketch (keep the key in 'claims')"
        )
    for key in sorted(set(named) - set(by_key) - planned_keys):
        out.append(f"sentence names {key!r}, which is neither a claim nor planned")
    for c in claims:
        if c.key not in named:
            out.append(f"claim {c.key!r} ({c.section}) is in no sentence of the registry")
            continue
        # the sentences naming it, in the paper's order: a quote may run over two of them
        joined = " ".join(
            p
            for paper, text in named[c.key]
            if paper == c.paper
            for p in registry.quote_parts(text)
        )
        if not all(part in joined for part in registry.quote_parts(c.quote)):
            out.append(f"claim {c.key!r}: its quote is in no sentence that names it")
    return out
