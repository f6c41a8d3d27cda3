"""Prompts (LPAQA): mining, paraphrasing by back-translation, selection and ensembles."""
