"""diffprivlib 0.6.6: RandomForestClassifier is not epsilon-DP when a record is added.

Standalone reproduction (needs only diffprivlib, numpy and scipy; runs in about ten seconds):

    python findings/diffprivlib_forest_add_remove.py

Each tree labels its leaves with `PermuteAndFlip(epsilon, sensitivity=1, monotonic=True)` on
the class counts: epsilon-DP when one record is added or removed (one count moves by one). The
forest gives every tree epsilon and relies on parallel composition, but it splits the records
between its k trees by position (forest.py: ``tree_idxs = arange(n) // (n / k)``), so adding one
record moves other records from tree to tree: several trees change, not one.

Exact case, k = 4 trees, epsilon = 1, every record at the point p = (1/2, 1/2):
  D  = [(p, 0), (p, 1)]          n = 2: tree 0 gets record 0, tree 2 record 1, trees 1 and 3 none
  D' = D + [(p, 0)]              n = 3: tree 0 gets record 0, tree 1 record 1, tree 2 the new one
Event E: tree 1 predicts 1 at p and tree 2 predicts 0 at p. A leaf with counts (1, 0) picks the
majority class with probability 1 - e^-1/2 = 0.816; an empty leaf picks uniformly. So
P_D[E] = 1/2 · e^-1/2 = 0.092 and P_D'[E] = 0.816² = 0.666: the ratio is 7.24 = e^1.98 > e^1.
(Under substitution, n is fixed, no record moves, and the forest is 2·epsilon-DP as any
add/remove mechanism is.)
"""

import math

import numpy as np
from diffprivlib import BudgetAccountant
from diffprivlib.models import RandomForestClassifier
from scipy.stats import beta

RUNS, EPSILON = 1500, 1.0
POINT = [[0.5, 0.5]]
rng = np.random.default_rng(0)


def frequency_of_event(labels: list[int]) -> int:
    hits = 0
    for _ in range(RUNS):
        forest = RandomForestClassifier(
            n_estimators=4,
            epsilon=EPSILON,
            bounds=([0.0, 0.0], [1.0, 1.0]),
            classes=[0, 1],
            max_depth=2,
            random_state=int(rng.integers(2**31 - 1)),
            accountant=BudgetAccountant(),
        )
        forest.fit(np.array(POINT * len(labels)), np.array(labels))
        hits += (
            forest.estimators_[1].predict(POINT)[0] == 1
            and forest.estimators_[2].predict(POINT)[0] == 0
        )
    return hits


smaller, larger = frequency_of_event([0, 1]), frequency_of_event([0, 1, 0])
exact = math.log((1 - math.exp(-EPSILON) / 2) ** 2 / (0.5 * math.exp(-EPSILON) / 2))
# one-sided 97.5 % Clopper-Pearson bounds on both sides: the ratio's lower bound holds with 95 %
upper_d = beta.ppf(0.975, smaller + 1, RUNS - smaller)
lower_d_prime = beta.ppf(0.025, larger, RUNS - larger + 1)
print(
    f"P[E] on D: {smaller / RUNS:.3f}, on D': {larger / RUNS:.3f} ({RUNS} fits each);"
    " exact 0.092 and 0.666"
)
print(
    f"epsilon >= {math.log(lower_d_prime / upper_d):.2f} with 95 % confidence"
    f" (exact {exact:.2f}); claimed {EPSILON}"
)
assert math.log(lower_d_prime / upper_d) > EPSILON
