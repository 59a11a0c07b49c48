"""diffprivlib 0.6.6: GaussianNB and LogisticRegression read their classes from the private labels.

Standalone reproduction (needs diffprivlib and numpy, not dpfuzz; about a second):

    python findings/diffprivlib_classes_from_data.py [fits per side, default 200]

``GaussianNB.fit`` calls ``_partial_fit(X, y, np.unique(y))`` and ``LogisticRegression.fit``
sets ``classes_ = np.unique(y)``; neither takes the classes as an argument of ``fit`` nor warns
(the trees and forests take ``classes=`` and warn with ``PrivacyLeakWarning`` when it is
missing). A class with one record in D and none in its neighbour D' is in the released model
of D every time and in that of D' never: the event "the model has two classes" has probability
1 and 0, so no finite epsilon holds, when a record is added or removed and when one record's
label changes. LogisticRegression raises ``ValueError`` on a single class instead, which leaks
the same fact through the error.
"""

import sys

import numpy as np
from diffprivlib import BudgetAccountant
from diffprivlib.models import GaussianNB, LogisticRegression

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
X = np.full((3, 2), 0.5)
rng = np.random.default_rng(0)
PAIRS = {  # relation: (D, D'), labels of records at (1/2, 1/2)
    "add/remove": ([0, 0], [0, 0, 1]),
    "substitution": ([0, 0, 0], [0, 0, 1]),
}


def classes_seen(model_class, labels, **options) -> int:
    """How many of RUNS fits release a model with two classes (a ValueError counts as one)."""
    seen = 0
    for _ in range(RUNS):
        model = model_class(
            epsilon=1.0,
            random_state=int(rng.integers(2**31 - 1)),
            accountant=BudgetAccountant(),
            **options,
        )
        try:
            model.fit(X[: len(labels)], np.array(labels))
        except ValueError:
            continue
        seen += len(model.classes_) == 2
    return seen


for name, model_class, options in (
    ("GaussianNB", GaussianNB, {"bounds": ([0.0, 0.0], [1.0, 1.0])}),
    ("LogisticRegression", LogisticRegression, {"data_norm": 1.0}),
):
    for relation, (d, d_prime) in PAIRS.items():
        on_d, on_d_prime = (classes_seen(model_class, labels, **options) for labels in (d, d_prime))
        print(
            f"{name}, {relation}, labels {d} vs {d_prime}: two classes in {on_d} and"
            f" {on_d_prime} of {RUNS} fits: epsilon = infinity"
        )
        assert on_d == 0 and on_d_prime == RUNS
