"""Profiles: the default parameters (models, data size) the chapters run with."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from calib.book.layout import BookError


@dataclass(frozen=True)
class Profile:
    """Default parameters for the chapters, by profile.

    ``shared`` values go to every chapter whose parameters cell declares that name (the shared
    names are :data:`SHARED_PARAMETERS`); ``chapters[name]`` values go to that chapter and must be
    declared there. A value may be a zero-argument callable, resolved when a chapter runs (so
    that the paper's model list is read from the registry only when needed). ``synthetic``
    profiles produce placeholder numbers; the book labels their chapters on every page.

    ``description`` says what the profile's *defaults* are and why (the documentation's words);
    ``label`` names its kind of models in a few words without a size. A page never prints the
    description: what a run's size was comes from its own parameters
    (:func:`calib.book.render.run_size`), which ``-p`` may have changed.
    """

    name: str
    description: str
    label: str  # a few words for the label on every page
    shared: Mapping[str, Any]
    chapters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    synthetic: bool = False

    def defaults_for(self, chapter: str, declared: Collection[str]) -> dict[str, Any]:
        """The profile's defaults for ``chapter``, restricted to the parameters it declares
        (``declared``: their names, e.g. :func:`calib.book.parameters.parse_parameters`)."""
        out = {k: _resolve(v) for k, v in self.shared.items() if k in declared}
        out.update({k: _resolve(v) for k, v in self.chapters.get(chapter, {}).items()})
        return out


def _resolve(value):
    return value() if callable(value) else value


def _paper_models() -> list[str]:
    from calib.models.registry import paper_models

    names = [spec.name for spec in paper_models()]
    if not names:
        raise BookError(
            "the paper profile needs the model list of the paper's Table 3 "
            "(calib/models/paper_models.csv), which is missing or empty"
        )
    return names


#: the parameter names profiles set for every chapter that declares them
SHARED_PARAMETERS: tuple[str, ...] = ("models", "relations", "per_relation", "seed", "n_bootstrap")

#: the relations of the quick profile: two 1:1 relations (60 options), a 25-option, a 6-option
#: and a 5-option relation
QUICK_RELATIONS = ["P36", "P37", "P19", "P30", "P105"]
#: the FACTOR sample of the quick profile, shared by the chapters that score FACTOR (factor,
#: answer_set) so that they reuse the same stored scores: statements of at most 160 tokens (the
#: prefix keeps its last tokens, as FACTOR cuts) and short completions, cheap on tiny models
QUICK_FACTOR = {"factor_items": 3, "factor_max_tokens": 160, "factor_completion_words": 25}
#: the paper profile scores every item of Wiki-FACTOR, the subset of the paper's Table 4 (a
#: download; without it the chapters stop with an error that names the file and its address)
PAPER_FACTOR = {"factor_items": None, "factor_subsets": ["wiki"]}

PROFILES: dict[str, Profile] = {
    "quick": Profile(
        name="quick",
        description=(
            "tiny randomly initialised models on a handful of BEAR instances of five "
            "relations: placeholder numbers that only show the pipeline runs; used by the "
            "tests"
        ),
        label="tiny randomly initialised models",
        shared={
            "models": ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"],
            "relations": QUICK_RELATIONS,
            "per_relation": 3,
            "seed": 0,
            "n_bootstrap": 20,
        },
        chapters={
            "lpaqa": {
                "lama_relations": ["P30", "P1303"],
                "train_per_relation": 2,
                "test_per_relation": 3,
                "top_t": 2,
                "max_sentences": 200,
                "paraphrase_rounds": 1,
                "adam_steps": 50,
                "bear_per_relation": 1,
                "bear_top_k": 1,
            },
            "factor": QUICK_FACTOR,
            "answer_set": QUICK_FACTOR,
            "clm_vs_mlm": {"min_instances": 5},
        },
        synthetic=True,
    ),
    "cpu": Profile(
        name="cpu",
        description=(
            "the two embedded offline models (smollm2-135m-instruct, gemma-3-270m) on a seeded "
            "BEAR sample, sized for a cold `make book` of about 40 minutes on 2 CPU cores and "
            "spent where it decides the most: the chapters that read the five paraphrase "
            "templates or the plain one (calibration, the answer set, CLM against MLM, the "
            "reductions, FACTOR's BEAR side) run 3 instances per relation, 180 facts per model, "
            "since they share one set of stored scores: the calibration chapter's headline "
            "claims (C_Base overconfident, C_Margin more reliable than C_Base) need about that "
            "many to be decided, by the ledger's facts-to-decide on 60; the chapters that score "
            "templates of their own (the linguistic markers, the start-token rules) and LPAQA's "
            "prompts keep their smaller samples. Each chapter's defaults are its parameters' "
            "(its Params); this profile sets only the models"
        ),
        label="the embedded offline models",
        shared={
            "models": ["smollm2-135m-instruct", "gemma-3-270m"],
            "relations": None,
            "seed": 0,
            "n_bootstrap": 1000,
        },
    ),
    "paper": Profile(
        name="paper",
        description=(
            "the models of the paper's Table 3 (the model registry's list of them) on "
            "all of BEAR (a GPU machine with the Hugging Face hub)"
        ),
        label="the paper's models",
        shared={
            "models": _paper_models,
            "relations": None,
            "per_relation": None,
            "seed": 0,
            "n_bootstrap": 1000,
        },
        chapters={
            "lpaqa": {
                "lama_relations": None,
                "answer_space": "test+train",
                "train_per_relation": 20,
                "test_per_relation": 50,
                "top_t": 10,
                "bear_per_relation": None,
                "bear_top_k": 5,
            },
            "factor": PAPER_FACTOR,
            "answer_set": PAPER_FACTOR,
        },
    ),
}
DEFAULT_PROFILE = "cpu"


class UnknownProfile(BookError, ValueError):
    """A profile name that is not one of ``PROFILES`` (a usage error: exit 2)."""


def get_profile(profile: str | Profile) -> Profile:
    """A profile by name (``quick``, ``cpu``, ``paper``) or the profile itself;
    :class:`UnknownProfile` (with the closest name) for any other name."""
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(str(profile), list(PROFILES), n=1)
        raise UnknownProfile(
            f"unknown profile {profile!r}"
            + (f" (did you mean {close[0]!r}?)" if close else "")
            + f"; the profiles are {', '.join(PROFILES)}"
        ) from None
