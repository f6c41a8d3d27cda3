import pytest

from calib.scoring.statements import bear_queries, common_prefix_length, fill_template, token_roles


def test_fill_template_subject_first():
    st = fill_template("[X] was born in [Y].", "Marie Curie", "Warsaw")
    assert st.text == "Marie Curie was born in Warsaw."
    spans = {role: st.text[a:b] for role, a, b in st.spans}
    assert spans == {"subject": "Marie Curie", "object": "Warsaw"}


def test_fill_template_object_first():
    st = fill_template("[Y] is where [X] was born.", "Ada", "London")
    assert st.text == "London is where Ada was born."
    spans = {role: (a, b) for role, a, b in st.spans}
    assert spans == {"object": (0, 6), "subject": (16, 19)}


def test_fill_template_capitalises_the_first_character_only():
    # lm-pub-quiz 0.3.3: placeholders replaced verbatim, then text[0].upper() + text[1:]
    st = fill_template("[X] is located in [Y].", "mountain states", "the United States")
    assert st.text == "Mountain states is located in the United States."
    spans = {role: st.text[a:b] for role, a, b in st.spans}
    assert spans == {"subject": "Mountain states", "object": "the United States"}
    assert (
        fill_template("[Y] is the rank of [X].", "duiker", "species").text
        == "Species is the rank of duiker."
    )
    assert fill_template(" [X] [Y]", "a", "b").text == " a b"  # no strip, no space handling


def test_fill_template_spans_follow_a_longer_capital():
    st = fill_template("[X] und [Y]", "ßa", "b")  # "ß".upper() == "SS"
    assert st.text == "SSa und b"
    assert {role: st.text[a:b] for role, a, b in st.spans} == {"subject": "SSa", "object": "b"}


@pytest.mark.parametrize("bad", ["[X] was born.", "[X] [Y] [Y]", "born in [Y]"])
def test_fill_template_rejects_bad_templates(bad):
    with pytest.raises(ValueError, match="exactly once"):
        fill_template(bad, "a", "b")


def test_token_roles_by_overlap():
    # "Ada was born in Paris." with tokens Ada| was| born| in| Paris|.
    offsets = [(0, 3), (3, 7), (7, 12), (12, 15), (15, 21), (21, 22)]
    spans = (("subject", 0, 3), ("object", 16, 21))
    assert token_roles(offsets, spans) == [
        "subject",
        "template",
        "template",
        "template",
        "object",
        "template",
    ]


def test_common_prefix_length():
    assert common_prefix_length([[1, 2, 3], [1, 2, 4], [1, 2]]) == 2
    assert common_prefix_length([[5, 6], [7]]) == 0
    assert common_prefix_length([[1, 2, 3]]) == 3


def test_bear_queries_cover_answer_space(small_bear):
    queries = bear_queries(small_bear, ["paraphrase-0", "paraphrase-4"])
    assert len(queries) == len(small_bear) * 2
    for q in queries:
        rel = small_bear.relations[q.relation]
        assert q.answers == rel.answer_labels
        assert len(q.statements) == rel.n_options
        row = small_bear.instances.set_index(["relation", "instance"]).loc[(q.relation, q.instance)]
        assert q.answer_idx == row["answer_idx"]
        assert q.answers[q.answer_idx] == row["obj_label"]
        assert row["sub_label"] in q.statements[0].text
