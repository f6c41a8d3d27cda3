"""LAMA T-REx (Petroni et al. 2019) with the LPAQA material of Jiang et al. (2020).

What is loaded, all through :func:`calib.data.root.data_file` / :func:`~calib.data.root.data_files`:

==========================================  ===================================================
file                                        loaded by
==========================================  ===================================================
``lama/relations.jsonl``                    :func:`load_lama` (the manual template per relation;
                                            only the 41 T-REx relations that have test facts)
``lama/facts/P*.jsonl``                     :func:`load_lama` (test facts -> ``Lama.instances``)
``lpaqa/TREx_train/P*.jsonl``               :func:`load_lama` (LPAQA's training pairs ->
                                            ``Lama.train``)
``lama/sentences/{train,dev}/P*.jsonl``     :func:`load_sentences` (Wikipedia evidence, the
                                            corpus for prompt mining, LPAQA §3.1)
``lpaqa/prompt/<set>/P*``                   :func:`load_lpaqa_prompts` (LPAQA's released
                                            prompts, a reference set; ``<set>``: ``mine``,
                                            ``paraphrase``, ``manual_paraphrase``)
==========================================  ===================================================

LAMA scores an object against the model's whole vocabulary; here, as in BEAR, every fact is
scored against a *closed answer space* per relation: all objects of that relation in the test
facts and the training pairs (sorted by label). So a :class:`Lama` is, like a
:class:`~calib.data.bear.Bear`, a :class:`~calib.data.probe.Probe` (with an extra ``train``
frame): relations are :class:`~calib.data.probe.Relation` objects whose templates are named
(the manual one is ``"manual"``; more are added with :meth:`Lama.with_templates`), and each
instance has a subject and the index ``answer_idx`` of its object in the answer space.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import pandas as pd

from calib.data.errors import DataFormatError
from calib.data.jsonl import check_unique, read_jsonl, read_text
from calib.data.probe import Probe, Relation
from calib.data.root import data_file, data_files
from calib.data.sampling import seeded_positions
from calib.data.templates import check_template

#: name of the manual LAMA template in ``Relation.templates``
MANUAL = "manual"
#: LPAQA's released prompt sets (folders under ``lpaqa/prompt``)
LPAQA_SETS: tuple[str, ...] = ("mine", "paraphrase", "manual_paraphrase")
SPLITS: tuple[str, ...] = ("train", "dev")
MASK = "[MASK]"

_RELATIONS = "lama/relations.jsonl"
_FACT_FIELDS = ("sub_label", "obj_label", "uuid")
_TRAIN_FIELDS = ("sub_uri", "obj_uri", "sub_label", "obj_label")
_SENTENCE_FIELDS = ("sub_label", "obj_label", "evidences")
_EVIDENCE_FIELDS = ("masked_sentence", "sub_surface", "obj_surface")
#: the kind of every field the loaders read (:data:`calib.data.jsonl.KINDS`)
_RELATION_TYPES = {"relation": "text", "label": "string", "type": "string", "description": "string"}
_FACT_TYPES = dict.fromkeys(_FACT_FIELDS, "text")
_TRAIN_TYPES = dict.fromkeys(_TRAIN_FIELDS, "text")
_SENTENCE_TYPES = {"sub_label": "text", "obj_label": "text", "evidences": "list"}
_PROMPT_TYPES = {"weight": "number"}
_INSTANCE_COLUMNS = (
    "relation",
    "instance",
    "split",
    "sub_id",
    "sub_label",
    "sub_aliases",
    "obj_id",
    "obj_label",
    "answer_idx",
)


@dataclass(frozen=True)
class Lama(Probe):
    """LAMA T-REx loaded and validated: a :class:`~calib.data.probe.Probe` plus training pairs.

    ``relations``: id -> :class:`~calib.data.probe.Relation` (``templates`` starts as
    ``{"manual": ...}``, the answer space is closed, see the module docstring).
    ``instances``: the test facts; ``train``: LPAQA's training pairs (for ranking prompts and
    learning ensemble weights, LPAQA §4). Both frames have the columns ``relation, instance,
    split, sub_id, sub_label, sub_aliases, obj_id, obj_label, answer_idx`` (test facts carry no
    Wikidata ids: ``sub_id``/``obj_id`` are ``""``; ``instance`` is the fact's uuid for test facts
    and ``"<sub_uri>-<obj_uri>"`` for training pairs). ``info``: one row per relation with its
    ``label``, ``type`` (``1-1``, ``N-1``, ``N-M``) and ``description``.
    """

    train: pd.DataFrame = field(default=None, repr=False)
    info: pd.DataFrame = field(default=None, repr=False)
    #: the ``dataset`` value of this probe's rows in a score table
    dataset: ClassVar[str] = "lama"
    name: ClassVar[str] = "LAMA"

    def sample(
        self,
        per_relation: int | None,
        seed: int = 0,
        n_relations: int | None = None,
        train_per_relation: int | None = None,
    ) -> Lama:
        """A seeded sample: ``n_relations`` relations, ``per_relation`` test facts each and
        ``train_per_relation`` training pairs each (``None``: all).

        Facts are drawn exactly as :meth:`~calib.data.probe.Probe.sample` draws them (a generator
        per relation seeded by ``seed`` and the relation id), so a larger sample holds a smaller one
        with the same seed; relations are drawn the same way from the sorted ids. Answer spaces are
        unchanged.
        """
        out = self
        if n_relations is not None:
            if n_relations < 1:
                raise ValueError(f"n_relations must be at least 1, got {n_relations}")
            ids = sorted(self.relations)
            out = out.select(
                [ids[i] for i in seeded_positions(len(ids), n_relations, seed, "relations")]
            )
        test = Probe.sample(out, per_relation, seed).instances
        train = Probe.sample(replace(out, instances=out.train), train_per_relation, seed).instances
        return replace(out, instances=test, train=train)

    def select(self, relations: list[str] | None) -> Lama:
        """Only the given relations (``None``: all)."""
        if relations is None:
            return self
        missing = sorted(set(relations) - set(self.relations))
        if missing:
            raise ValueError(f"unknown LAMA relation(s) {missing}; known: {sorted(self.relations)}")
        keep = [r for r in self.relations if r in set(relations)]

        def part(frame: pd.DataFrame) -> pd.DataFrame:
            return frame[frame["relation"].isin(keep)].reset_index(drop=True)

        return replace(
            self,
            relations={r: self.relations[r] for r in keep},
            instances=part(self.instances),
            train=part(self.train),
            info=part(self.info),
        )

    def with_templates(self, prompts: pd.DataFrame, keep_manual: bool = True) -> Lama:
        """Relations whose templates are the prompts in ``prompts`` (columns ``relation,
        template, text``; e.g. from :func:`load_lpaqa_prompts` or :mod:`calib.prompts`).

        Template names must be unique per relation; ``keep_manual`` keeps ``"manual"`` first.
        Relations without prompts keep only what they had (``manual``) or raise when
        ``keep_manual`` is false.
        """
        for col in ("relation", "template", "text"):
            if col not in prompts.columns:
                raise ValueError(f"prompts lack column {col!r}; expected relation, template, text")
        dup = prompts[prompts.duplicated(["relation", "template"])]
        if len(dup):
            raise ValueError(f"duplicate template names {dup[['relation', 'template']].values[:3]}")
        rels = {}
        for rid, rel in self.relations.items():
            own = prompts[prompts["relation"] == rid]
            templates = {MANUAL: rel.templates[MANUAL]} if keep_manual else {}
            for name, text in zip(own["template"], own["text"]):
                templates[str(name)] = check_template("prompts", text, field=f"{rid}.{name}")
            if not templates:
                raise ValueError(f"relation {rid} has no prompt in `prompts`")
            rels[rid] = replace(rel, templates=templates)
        return replace(self, relations=rels)


def _answer_space(test: list[dict], train: list[dict]) -> tuple[tuple, tuple]:
    labels = sorted({r["obj_label"] for r in test} | {r["obj_label"] for r in train})
    qids: dict[str, set] = {}
    for r in train:
        qids.setdefault(r["obj_label"], set()).add(r["obj_uri"])
    ids = tuple(next(iter(qids[lab])) if len(qids.get(lab, ())) == 1 else "" for lab in labels)
    return tuple(labels), ids


def _frame(rid: str, split: str, rows: list[dict], index: dict[str, int]) -> pd.DataFrame:
    test = split == "test"
    return pd.DataFrame(
        {
            "relation": rid,
            "instance": [r["uuid"] if test else f"{r['sub_uri']}-{r['obj_uri']}" for r in rows],
            "split": split,
            "sub_id": ["" if test else r["sub_uri"] for r in rows],
            "sub_label": [r["sub_label"] for r in rows],
            "sub_aliases": [[] for _ in rows],
            "obj_id": ["" if test else r["obj_uri"] for r in rows],
            "obj_label": [r["obj_label"] for r in rows],
            "answer_idx": [index[r["obj_label"]] for r in rows],
        },
        columns=list(_INSTANCE_COLUMNS),
    )


def load_relations(root=None) -> pd.DataFrame:
    """``lama/relations.jsonl`` as a frame: ``relation, template, label, type, description``.

    Every template must hold ``[X]`` and ``[Y]`` once; relation ids must not repeat.

    Parameters
    ----------
    root : str or os.PathLike or None
        The data root; ``None``: ``$CALIB_DATA_DIR``, else the user cache
        (:func:`calib.data.root.data_root`).

    Returns
    -------
    pandas.DataFrame
        One row per relation; ``label``, ``type`` and ``description`` are ``""`` where the file
        has none.

    Raises
    ------
    calib.data.errors.DataFormatError
        For a malformed line, a template without ``[X]``/``[Y]`` or a repeated relation id.
    calib.data.root.DataNotFoundError
        When a data file is missing under the root and cannot be downloaded.
    """
    path = data_file(_RELATIONS, root)
    rows = read_jsonl(path, required=("relation", "template"), types=_RELATION_TYPES)
    for row in rows:
        check_template(path, row["template"], line=row["_line"], field="template")
    check_unique(path, rows, lambda r: r["relation"], "relation", lambda k: f"relation {k}")
    return pd.DataFrame(
        {
            "relation": [r["relation"] for r in rows],
            "template": [r["template"] for r in rows],
            "label": [r.get("label", "") for r in rows],
            "type": [r.get("type", "") for r in rows],
            "description": [r.get("description", "") for r in rows],
        }
    )


def _read_facts(path: Path) -> list[dict]:
    rows = read_jsonl(path, required=_FACT_FIELDS, types=_FACT_TYPES)
    check_unique(path, rows, lambda r: r["uuid"], "uuid", lambda k: f"uuid {k}")
    return rows


def _read_train(path: Path) -> list[dict]:
    rows = read_jsonl(path, required=_TRAIN_FIELDS, types=_TRAIN_TYPES)
    check_unique(
        path, rows, lambda r: (r["sub_uri"], r["obj_uri"]), "sub_uri", lambda k: f"pair {k}"
    )
    return rows


ANSWER_SPACES: tuple[str, ...] = ("test+train", "test")


def load_lama(
    root=None, relations: list[str] | None = None, answer_space: str = "test+train"
) -> Lama:
    """Load and validate LAMA T-REx: the relations with test facts, their manual templates, the
    test facts and LPAQA's training pairs, with closed answer spaces (LPAQA §5 data; see the
    module docstring for how this differs from LAMA's open vocabulary).

    ``answer_space``: ``"test+train"`` (default) - all objects of the relation in the test facts
    and the training pairs; ``"test"`` - only the test facts' objects (smaller, cheaper to score;
    training pairs with other objects are then dropped). Training pairs that repeat a test fact
    (same subject and object label) are dropped, so the two sets are disjoint.

    Raises :exc:`~calib.data.errors.DataFormatError` (file, line, field) for bytes that are not
    UTF-8, malformed JSON (with its column), a missing, empty or wrongly typed field, an empty file,
    a template without ``[X]``/``[Y]``, a repeated uuid or pair, or a facts file whose relation is
    not in ``lama/relations.jsonl``.

    Parameters
    ----------
    root : str or os.PathLike or None
        The data root; ``None``: ``$CALIB_DATA_DIR``, else the user cache
        (:func:`calib.data.root.data_root`).
    relations : list of str or None
        Only these relation ids; ``None`` (default): every ``lama/facts/P*.jsonl``.
    answer_space : str
        ``"test+train"`` (default) or ``"test"`` (``ANSWER_SPACES``).

    Returns
    -------
    calib.data.lama.Lama
        The relations (the manual template each), the test facts as ``instances``, the
        training pairs as ``train`` and the relations' ``info``.

    Raises
    ------
    ValueError
        For an unknown ``answer_space`` or relation id.
    calib.data.errors.DataFormatError
        For the malformed data above, or no test-fact files.
    calib.data.root.DataNotFoundError
        When a data file is missing under the root and cannot be downloaded.
    """
    if answer_space not in ANSWER_SPACES:
        raise ValueError(f"unknown answer_space {answer_space!r}; known: {list(ANSWER_SPACES)}")
    rel_path = data_file(_RELATIONS, root)
    info = load_relations(root).set_index("relation", drop=False)
    files = data_files("lama/facts/P*.jsonl", root)
    if not files:
        raise DataFormatError(rel_path.parent, "no test-fact files lama/facts/P*.jsonl")
    if relations is not None:
        missing = sorted(set(relations) - {f.stem for f in files})
        if missing:
            raise ValueError(f"unknown LAMA relation(s) {missing}")
        files = [f for f in files if f.stem in set(relations)]
    rels: dict[str, Relation] = {}
    tests, trains = [], []
    for path in files:
        rid = path.stem
        if rid not in info.index:
            raise DataFormatError(path, f"relation {rid} has no entry in {rel_path}")
        test = _read_facts(path)
        train_path = data_file(f"lpaqa/TREx_train/{rid}.jsonl", root)
        test_pairs = {(r["sub_label"], r["obj_label"]) for r in test}
        train = [
            r for r in _read_train(train_path) if (r["sub_label"], r["obj_label"]) not in test_pairs
        ]
        if answer_space == "test":
            test_objects = {r["obj_label"] for r in test}
            train = [r for r in train if r["obj_label"] in test_objects]
        labels, ids = _answer_space(test, train)
        index = {lab: i for i, lab in enumerate(labels)}
        digest = hashlib.sha256(
            info.loc[rid, "template"].encode() + path.read_bytes() + train_path.read_bytes()
        ).hexdigest()[:16]
        rels[rid] = Relation(
            id=rid,
            templates={MANUAL: info.loc[rid, "template"]},
            answer_labels=labels,
            answer_ids=ids,
            version=digest,
        )
        tests.append(_frame(rid, "test", test, index))
        trains.append(_frame(rid, "train", train, index))
    return Lama(
        relations=rels,
        instances=pd.concat(tests, ignore_index=True),
        train=pd.concat(trains, ignore_index=True),
        info=info.loc[list(rels), ["relation", "label", "type", "description"]].reset_index(
            drop=True
        ),
    )


def answer_spaces(lama: Probe) -> pd.DataFrame:
    """One row per (relation, option): ``relation, option, obj_label, obj_id``.

    Parameters
    ----------
    lama : calib.data.probe.Probe
        A probe (LAMA, or any other) whose relations hold answer spaces.

    Returns
    -------
    pandas.DataFrame
        The options of every relation, in answer-space order.
    """
    return pd.DataFrame(
        [
            (rid, i, lab, oid)
            for rid, rel in lama.relations.items()
            for i, (lab, oid) in enumerate(zip(rel.answer_labels, rel.answer_ids))
        ],
        columns=["relation", "option", "obj_label", "obj_id"],
    )


def load_sentences(
    root=None, relations: list[str] | None = None, splits: Iterable[str] = SPLITS
) -> pd.DataFrame:
    """The Wikipedia evidence sentences of T-REx facts, one row per evidence (LPAQA §3.1's
    mining corpus): ``relation, split, fact, sub_label, obj_label, sub_surface, obj_surface,
    masked_sentence`` (the object replaced by ``[MASK]``, exactly once), ``sentence`` (with the
    object's surface form put back).

    ``fact`` numbers the facts of a relation file (its line). Relations without a sentence file
    in a split are simply absent from it (train lacks P190, P47, P530; dev lacks P47).

    Parameters
    ----------
    root : str or os.PathLike or None
        The data root; ``None``: ``$CALIB_DATA_DIR``, else the user cache
        (:func:`calib.data.root.data_root`).
    relations : list of str or None
        Only these relation ids; ``None`` (default): all.
    splits : iterable of str
        The splits to read (default both, ``train`` and ``dev``).

    Returns
    -------
    pandas.DataFrame
        One row per evidence sentence, with the columns above.

    Raises
    ------
    ValueError
        For an unknown split.
    calib.data.errors.DataFormatError
        For a malformed line, or an evidence that is no object, lacks a non-empty string field or
        whose ``masked_sentence`` does not hold ``[MASK]`` exactly once.
    """
    splits = tuple(splits)
    bad = [s for s in splits if s not in SPLITS]
    if bad:
        raise ValueError(f"unknown sentence split(s) {bad}; known: {list(SPLITS)}")
    cols = [
        "relation",
        "split",
        "fact",
        "sub_label",
        "obj_label",
        "sub_surface",
        "obj_surface",
        "masked_sentence",
        "sentence",
    ]
    out = []
    for split in splits:
        for path in data_files(f"lama/sentences/{split}/P*.jsonl", root):
            if relations is not None and path.stem not in set(relations):
                continue
            for row in read_jsonl(path, required=_SENTENCE_FIELDS, types=_SENTENCE_TYPES):
                line, ev = row["_line"], row["evidences"]
                for j, e in enumerate(ev):
                    where = f"evidences[{j}]"
                    if not isinstance(e, dict):
                        raise DataFormatError(path, "expected an object", line=line, field=where)
                    for key in _EVIDENCE_FIELDS:
                        if not isinstance(e.get(key), str) or not e[key]:
                            raise DataFormatError(
                                path,
                                "missing or not a non-empty string",
                                line=line,
                                field=f"{where}.{key}",
                            )
                    masked = e["masked_sentence"]
                    if masked.count(MASK) != 1:
                        raise DataFormatError(
                            path,
                            f"expected {MASK} exactly once, found {masked.count(MASK)}",
                            line=line,
                            field=f"{where}.masked_sentence",
                        )
                    out.append(
                        (
                            path.stem,
                            split,
                            line,
                            row["sub_label"],
                            row["obj_label"],
                            e["sub_surface"],
                            e["obj_surface"],
                            masked,
                            masked.replace(MASK, e["obj_surface"]),
                        )
                    )
    return pd.DataFrame(out, columns=cols)


def load_lpaqa_prompts(kind: str, root=None, relations: list[str] | None = None) -> pd.DataFrame:
    """LPAQA's released prompts of one ``kind`` (``mine``, ``paraphrase``, ``manual_paraphrase``).

    ``mine`` and ``paraphrase`` are JSON lines ``{"template", "weight"}`` (the weight is the
    optimised-ensemble weight LPAQA learned for BERT); ``manual_paraphrase`` is plain text, one
    template a line. Returns ``relation, template, text, rank, weight, source``: ``template`` is
    the name ``lpaqa-<kind>-<rank>`` (rank = 0-based line order), ``weight`` NaN where none is
    given, ``source`` = ``lpaqa-<kind>``. Exact duplicate templates of a relation are dropped.

    Parameters
    ----------
    kind : str
        ``mine``, ``paraphrase`` or ``manual_paraphrase``.
    root : str or os.PathLike or None
        The data root; ``None``: ``$CALIB_DATA_DIR``, else the user cache
        (:func:`calib.data.root.data_root`).
    relations : list of str or None
        Only these relation ids; ``None`` (default): all.

    Returns
    -------
    pandas.DataFrame
        One row per distinct template of a relation, with the columns above.

    Raises
    ------
    ValueError
        For an unknown ``kind``.
    calib.data.errors.DataFormatError
        For a malformed line, an empty ``manual_paraphrase`` file or a template without
        ``[X]``/``[Y]``.
    """
    if kind not in LPAQA_SETS:
        raise ValueError(f"unknown LPAQA prompt set {kind!r}; known: {list(LPAQA_SETS)}")
    pattern = (
        f"lpaqa/prompt/{kind}/P*.txt"
        if kind == "manual_paraphrase"
        else f"lpaqa/prompt/{kind}/P*.jsonl"
    )
    rows = []
    for path in data_files(pattern, root):
        rid = path.stem
        if relations is not None and rid not in set(relations):
            continue
        if kind == "manual_paraphrase":
            entries = []
            for lineno, line in enumerate(read_text(path).split("\n"), 1):
                if line.strip():
                    entries.append((lineno, line.strip(), float("nan")))
            if not entries:
                raise DataFormatError(
                    path,
                    "the file holds no prompts (it is empty); expected "
                    "one template per line; restore the file",
                )
        else:
            entries = [
                (row["_line"], row["template"], float(row.get("weight", float("nan"))))
                for row in read_jsonl(path, required=("template",), types=_PROMPT_TYPES)
            ]
        seen = set()
        for lineno, text, weight in entries:
            check_template(path, text, line=lineno, field="template")
            if text in seen:
                continue
            seen.add(text)
            rank = len(seen) - 1
            rows.append((rid, f"lpaqa-{kind}-{rank:02d}", text, rank, weight, f"lpaqa-{kind}"))
    return pd.DataFrame(rows, columns=["relation", "template", "text", "rank", "weight", "source"])
