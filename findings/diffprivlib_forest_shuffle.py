"""diffprivlib 0.6.6: RandomForestClassifier(shuffle=True) is not epsilon-DP either.

Standalone reproduction (needs diffprivlib, numpy and scipy, not dpfuzz; about 35 seconds):

    python findings/diffprivlib_forest_shuffle.py [fits per side, default 5000]

With ``shuffle=True`` the forest permutes the records before splitting them by position
(forest.py: ``tree_idxs = permutation(n) // (n / k)``), so no record's tree is fixed, but the
size of each tree's block still depends on n. With k = 4 trees and 3 records, tree 3 never gets
a record and labels its leaves uniformly; with 4 records every tree gets one.

k = 4, epsilon = 1, every record at p = (1/2, 1/2), prediction at p: D = labels [0, 0, 0],
D' = [0, 0, 0, 1]. The pair's exact epsilon is 1.71, at the outcome "trees 0-2 say 1, tree 3
says 0" (`forest_exact.py`; the largest over datasets of up to 7 records is 1.75). The event
measured here, fixed in advance, is "tree 3 says 0 and at least two of trees 0-2 say 1": exact
ln ratio 1.37, and likelier than the single outcome, so fewer fits certify more.
"""

import math
import sys

from forest_exact import event_probability, pair_epsilon
from forest_fits import certified_epsilon, fitted_labels

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
D, D_PRIME = (0, 0, 0), (0, 0, 0, 1)


def event(labels):
    return (labels[:, 3] == 0) & (labels[:, :3].sum(axis=1) >= 2)


exact, outcome = pair_epsilon(D, D_PRIME, 4, 1.0, shuffle=True)
p = [event_probability(d, event, 4, 1.0, shuffle=True) for d in (D_PRIME, D)]
hits = [
    int(event(fitted_labels(d, RUNS, seed=side, shuffle=True)).sum())
    for side, d in enumerate((D_PRIME, D))
]
print(
    f"{list(D_PRIME)} vs {list(D)}: P = {p[0]:.4f} vs {p[1]:.4f} exact (ln ratio"
    f" {math.log(p[0] / p[1]):.2f}), {hits[0] / RUNS:.4f} vs {hits[1] / RUNS:.4f} measured"
    f" ({RUNS} fits each)"
)
print(
    f"  exact epsilon of the pair = {exact:.2f} (outcome {outcome}); certified epsilon >="
    f" {certified_epsilon(*hits, RUNS):.2f} (95 %); claimed 1"
)
