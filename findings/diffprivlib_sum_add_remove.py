"""diffprivlib 0.6.6: tools.sum keeps n public (private under substitution, not add/remove).

Standalone reproduction (needs only diffprivlib and numpy; runs in about a second):

    python findings/diffprivlib_sum_add_remove.py [runs per dataset, default 4000]

`diffprivlib.tools.sum` noises the sum with `LaplaceTruncated(sensitivity=upper - lower,
lower=n·lower, upper=n·upper)`. The output range depends on the number of records n, so a
neighbour with one record more can release values the other dataset never can: with bounds
(0, 1), sum([1]) never exceeds 1, while sum([1, 1]) does with probability > 1/2. No finite ε
holds under add/remove; under substitution (n public) the release is ε-DP.
"""

import sys

import numpy as np
from diffprivlib import BudgetAccountant, tools

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
rng = np.random.default_rng(0)


def fraction_above_one(dataset: list[float]) -> float:
    outputs = [
        tools.sum(
            np.array(dataset),
            epsilon=1.0,
            bounds=(0.0, 1.0),
            random_state=int(rng.integers(2**31 - 1)),
            accountant=BudgetAccountant(),
        )
        for _ in range(RUNS)
    ]
    return float(np.mean(np.array(outputs) > 1.0))


smaller, larger = fraction_above_one([1.0]), fraction_above_one([1.0, 1.0])
print(f"P[sum > 1]: {smaller:.4f} on [1.0], {larger:.4f} on [1.0, 1.0] ({RUNS} runs each)")
print(
    "an event with probability 0 on one neighbour and > 0 on the other:"
    " no finite epsilon under add/remove"
)
assert smaller == 0.0 and larger > 0.4
