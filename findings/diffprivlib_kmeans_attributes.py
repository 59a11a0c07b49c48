"""diffprivlib 0.6.6: a fitted KMeans holds exact functions of its training records.

Standalone reproduction (needs diffprivlib, numpy and scipy, not dpfuzz; about ten seconds):

    python findings/diffprivlib_kmeans_attributes.py [fits per side, default 2000]

``KMeans.fit`` computes DP cluster centres (noisy counts and sums per cluster, Su et al. 2016),
then sets ``labels_`` (each training record's nearest centre), ``inertia_`` (the exact sum of the
records' squared distances to their nearest centre) and ``n_iter_`` (a function of n), as
scikit-learn's KMeans does; its docstring lists them without a caveat. ``cluster_centers_`` is
private; the fitted object is not.

The pair: D holds two records at (1/2, 1/2), D' adds one at (0, 0); bounds [0, 1]^2, 2 clusters,
ε = 1, under add/remove (diffprivlib's relation for KMeans). Every centre lies in [0, 1]^2, at
squared distance at most 1/2 from (1/2, 1/2), so inertia_ on D is at most 2 · 1/2 = 1. On D' the
record at (0, 0) adds its squared distance to the nearest centre, up to 2: the event
"inertia_ > 1" has probability 0 on D and a positive one on D', so no finite ε holds (exact
ε = ∞). labels_ has n entries, so its length also tells n.
"""

import sys
import warnings

import numpy as np
from diffprivlib import BudgetAccountant
from diffprivlib.models import KMeans
from scipy.stats import beta

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
CONFIDENCE = 0.95
rng = np.random.default_rng(0)
D = np.full((2, 2), 0.5)
D_PRIME = np.vstack([D, [[0.0, 0.0]]])


def inertias(records: np.ndarray) -> np.ndarray:
    """inertia_ of RUNS fits on `records`."""
    values = []
    for _ in range(RUNS):
        model = KMeans(
            epsilon=1.0,
            bounds=([0.0, 0.0], [1.0, 1.0]),
            n_clusters=2,
            random_state=int(rng.integers(2**31 - 1)),
            accountant=BudgetAccountant(),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(records)
        values.append(model.inertia_)
    return np.array(values)


on_d, on_d_prime = inertias(D), inertias(D_PRIME)
hits_d, hits_d_prime = int(np.sum(on_d > 1.0)), int(np.sum(on_d_prime > 1.0))
# one-sided Clopper–Pearson bounds, β/2 each: an upper bound on D's rate, a lower one on D''s
alpha = (1 - CONFIDENCE) / 2
upper_d = beta.ppf(1 - alpha, hits_d + 1, RUNS - hits_d)
lower_d_prime = beta.ppf(alpha, hits_d_prime, RUNS - hits_d_prime + 1) if hits_d_prime else 0.0
print(f"inertia_ > 1 in {hits_d} of {RUNS} fits on D and {hits_d_prime} of {RUNS} on D'")
print(f"largest inertia_ on D: {on_d.max():.3f} (at most 1 whatever the centres)")
print("exact epsilon = infinity (a support difference)")
if lower_d_prime > 0:
    bound = np.log(lower_d_prime / upper_d)
    print(f"measured: epsilon >= {bound:.2f} at {CONFIDENCE:.0%} confidence")
assert hits_d == 0 and hits_d_prime > 0
