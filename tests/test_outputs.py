"""Structured outputs: keyed results whose keys come and go, categories, suppressed values,
mixed tuples, lists of varying length and models, encoded so the testers can refute a leak and
say it in the release's own terms."""

from __future__ import annotations

import numpy as np
import pytest

from dpfuzz import ApproxDP, Domain, PureDP, audit
from dpfuzz.errors import InvalidArgument, MechanismError
from dpfuzz.outputs import Category, Keyed, Mixed, Model, Number, Sequence, auto_encoder, structured

KEYS = Domain(low=0, high=4, dtype="int", max_size=3)  # records are keys 0..4


def noisy_counts(threshold: float, epsilon: float = 1.0):
    """A group-by count with partition selection: each key in the data, its count plus
    Laplace(1/ε) noise, released when the noisy count exceeds `threshold`."""

    def release(dataset, rng):
        keys, counts = np.unique(np.asarray(dataset, dtype=int), return_counts=True)
        noisy = counts + rng.laplace(0.0, 1.0 / epsilon, len(counts))
        return {int(key): float(value) for key, value in zip(keys, noisy) if value > threshold}

    return release


def test_a_partition_selection_that_releases_every_key_with_a_positive_count_is_refuted():
    report = audit(
        structured(noisy_counts(threshold=0.0)), ApproxDP(1.0, 1e-5), KEYS, budget="quick", seed=0
    )
    assert report.violated
    assert "key" in report.summary()  # the event is said in the release's terms


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_a_partition_selection_thresholded_for_its_delta_is_not_refuted(seed):
    epsilon, delta = 1.0, 1e-5
    threshold = 1 + np.log(1 / (2 * delta)) / epsilon  # one record moves one key's count by 1
    report = audit(
        structured(noisy_counts(threshold, epsilon)),
        ApproxDP(epsilon, delta),
        KEYS,
        budget="quick",
        seed=seed,
    )
    assert not report.violated


def noisy_argmax_label(scale: float):
    labels = ("low", "middle", "high")

    def release(dataset, rng):
        scores = np.array(
            [
                np.sum(dataset < 0.33),
                np.sum((dataset >= 0.33) & (dataset < 0.66)),
                np.sum(dataset >= 0.66),
            ]
        )
        return labels[int(np.argmax(scores + rng.laplace(0.0, scale, 3)))]

    return release


def test_a_label_released_with_too_little_noise_is_refuted_and_named():
    report = audit(
        structured(noisy_argmax_label(scale=0.1)),
        PureDP(1.0),
        Domain(max_size=3),
        budget="quick",
        seed=1,
    )
    assert report.violated and any(
        label in report.summary() for label in ("'low'", "'middle'", "'high'")
    )


def test_keyed_results_learn_their_keys_then_count_new_ones_as_other():
    encoder = Keyed(spare=1)
    encoder.learn([{"a": 1.0}, {"a": 2.0, "b": None}])
    encoder.freeze()
    rows = encoder.encode([{"a": 3.0}, {"b": None, "c": 5.0}, {}])
    assert encoder.columns[:4] == [
        "key 'a' (0 absent, 1 released, 2 suppressed)",
        "key 'a' value",
        "key 'b' (0 absent, 1 released, 2 suppressed)",
        "key 'b' value",
    ]
    assert (
        rows[0, :2].tolist() == [1, 3]
        and rows[1, 2:4].tolist() == [2, 0]
        and rows[1, -2:].tolist() == [1, 5]
    )
    assert rows.shape == (3, encoder.width) and not rows[2].any()


def test_a_keyed_result_keeps_its_width_when_later_calls_bring_new_keys():
    encoder = Keyed(spare=2)
    encoder.learn([{"a": 1.0}])
    width = encoder.width
    encoder.learn([{"b": 1.0, "c": 1.0, "d": 1.0}])  # two spare slots: two of the three keys
    encoder.freeze()
    assert encoder.width == width and len(encoder.keys) == 3


def test_categories_none_and_unknown_have_codes_of_their_own():
    encoder = Category()
    encoder.learn(["x", "y", None])
    encoder.freeze()
    np.testing.assert_array_equal(encoder.encode(["y", None, "z", "x"]).ravel(), [1, -1, 2, 0])
    assert encoder.word(2) == "another category" and encoder.word(-1) == "suppressed"


def test_numbers_lists_tuples_and_models_are_encoded_at_a_fixed_width():
    np.testing.assert_array_equal(
        Number().encode([2.5, None, float("nan")]), [[0, 2.5], [1, 0], [1, 0]]
    )
    sequence = auto_encoder([["a", "b"], ["b"]])
    assert isinstance(sequence, Sequence)
    sequence.learn([["a", "b"], ["b"]])
    # 4 item columns: twice the longest
    assert sequence.encode([["b", "a", "c", "a", "b"]]).tolist() == [[5, 1, 0, 2, 0]]
    mixed = auto_encoder([("a", 1.0), ("b", None)])
    assert isinstance(mixed, Mixed)
    mixed.learn([("a", 1.0), ("b", None)])
    assert mixed.encode([("b", 2.0)]).tolist() == [[1, 0, 2.0]]

    class Fitted:
        coef_ = np.array([[1.0, 2.0]])
        intercept_ = np.array([0.5])

    model = auto_encoder([Fitted()])
    assert isinstance(model, Model)
    model.learn([Fitted()])
    assert (
        model.encode([Fitted()]).tolist() == [[1.0, 2.0, 0.5, 0.0]]
        and model.columns[0] == "coef_[0, 0]"
    )

    class OneClassMore(Fitted):
        coef_ = np.array([[1.0, 2.0], [3.0, 4.0]])

    # a model whose attributes changed shape (a class more) is a value of the last coordinate
    row = model.encode([OneClassMore()])[0]
    assert row[:3].tolist() == [0.0, 0.0, 0.5] and row[3] != 0
    assert (
        "coef_ (2, 2)" in model.describe(row)
        and model.describe(model.encode([Fitted()])[0]) is None
    )


def test_structured_releases_can_release_their_errors_as_outcomes():
    from dpfuzz.error_outcomes import error_code

    class Fitted:
        def __init__(self, labels):
            self.classes_ = np.unique(labels)
            self.coef_ = np.ones((1, 2))

    def fit(dataset, rng):  # raises on one class, as LogisticRegression does
        if len(np.unique(dataset)) < 2:
            raise ValueError("needs two classes")
        return Fitted(dataset)

    mechanism = structured(
        fit, encoder=Model({"classes_": (2,), "coef_": (1, 2)}), errors="outcome"
    )
    rng = np.random.default_rng(0)
    raised = mechanism(np.array([1.0, 1.0]), 3, rng)  # the first calls raise: the width is known
    fitted = mechanism(np.array([0.0, 1.0]), 3, rng)
    assert raised.shape == fitted.shape == (3, 6)
    assert (raised[:, -1] == error_code("ValueError")).all() and not raised[:, :-1].any()
    assert fitted[0].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    words = mechanism.describe_output
    assert words(raised[0]) == "raised ValueError" and "ValueError" in words.columns[-1]
    # without a known width, a release that raises from its first call says what to give
    for encoder in (None, Model()):
        unknown = structured(fit, encoder=encoder, errors="outcome")
        with pytest.raises(MechanismError, match="Model\\(shapes="):
            unknown(np.array([1.0]), 2, rng)
    with pytest.raises(InvalidArgument, match="one-output release"):
        structured(lambda dataset, num_samples, rng: [1] * num_samples, errors="outcome")


def test_keyed_results_with_given_keys_and_models_of_named_attributes_have_a_known_width():
    def counts(dataset, rng):  # raises on one record, as MWEM on a table of one distinct row
        if len(dataset) < 2:
            raise ZeroDivisionError("one bin")
        return {"a": 1, "b": 2}

    mechanism = structured(counts, encoder=Keyed(keys=["a", "b"]), errors="outcome")
    rng = np.random.default_rng(0)
    assert Keyed(keys=["a"]).sized and not Keyed().sized
    assert mechanism(np.zeros(1), 2, rng).shape == mechanism(np.zeros(2), 2, rng).shape == (2, 7)

    class Clustered:
        cluster_centers_, inertia_, labels_ = np.zeros((2, 2)), 0.25, np.zeros(5)

    model = Model(attributes=("cluster_centers_", "inertia_"))
    model.learn([Clustered()])
    assert model.columns[-2:] == ["inertia_", "shape (0 = as learnt)"] and model.width == 6


def test_outputs_it_cannot_encode_say_what_to_do():
    with pytest.raises(MechanismError, match="give structured\\(release, encoder=...\\)"):
        auto_encoder([object()])
    with pytest.raises(MechanismError, match="the value of key 'a' is \\[1\\], not a number"):
        Keyed(keys=["a"]).encode([{"a": [1]}])


def test_keyed_results_whose_values_are_labels_get_their_codes():
    encoder = Keyed()
    encoder.learn([{"north": "high", "south": "low"}])
    encoder.freeze()
    rows = encoder.encode([{"north": "low", "south": "medium"}])
    # "low" is code 1; "medium", first seen now, is "another category" (2)
    assert rows[0, :4].tolist() == [
        1,
        1,
        1,
        2,
    ]


PARTITION_MODULE = """
import numpy as np

def every_key(dataset, rng):
    keys, counts = np.unique(np.asarray(dataset, dtype=int), return_counts=True)
    noisy = counts + rng.laplace(0.0, 1.0, len(counts))
    return {int(key): float(value) for key, value in zip(keys, noisy) if value > 0}
"""


def test_a_campaign_target_marked_structured_is_encoded_and_caught(tmp_path, monkeypatch):
    from dpfuzz.cli import main
    from dpfuzz.store import ResultsStore

    (tmp_path / "partitions.py").write_text(PARTITION_MODULE)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "campaign.toml").write_text(
        'budget = "quick"\n[[target]]\nmechanism = "partitions:every_key"\nstructured = true\ntruth'
        ' = "violates"\nclaim = { type = "ApproxDP", epsilon = 1.0, delta = 1e-5 }\ndomain = { low'
        ' = 0, high = 4, dtype = "int", max_size = 3 }\n'
    )
    assert main(["campaign", "run", "campaign.toml", "--results", "results", "--no-report"]) == 0
    (summary,) = ResultsStore(tmp_path / "results" / "results.db").summaries(1)
    assert summary["outcome"] == "caught"
