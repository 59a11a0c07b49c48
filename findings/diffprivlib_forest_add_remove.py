"""diffprivlib 0.6.6: RandomForestClassifier is not epsilon-DP when a record is added.

Standalone reproduction (needs diffprivlib, numpy and scipy, not dpfuzz; about 40 seconds):

    python findings/diffprivlib_forest_add_remove.py [fits per side, default 3000]

Each tree labels its leaves with `PermuteAndFlip(epsilon, sensitivity=1, monotonic=True)` on
the class counts: epsilon-DP when one record is added or removed (one count moves by one). The
forest gives every tree epsilon and relies on parallel composition, but it splits the records
between its k trees by position (forest.py: ``tree_idxs = arange(n) // (n / k)``), so adding one
record moves other records from tree to tree: several trees change, not one.

k = 4 trees, epsilon = 1, every record at the point p = (1/2, 1/2), prediction at p:

* D = labels [0, 1] (trees 0 and 2 hold one record each), D' = [0, 1, 0] (trees 0, 1, 2). The
  event "tree 1 says 0 and tree 2 says 1" has probability 1/2 · (1 − e^-1/2) = 0.408 on D and
  (e^-1/2)^2 = 0.034 on D': exact epsilon = ln(2e^2 − e) = 2.49.
* D = labels [0, 1, 1, 0, 0, 1, 1, 0] (every tree a tie) and D' = D + [0]: every boundary
  moves; exact epsilon = 7 = (2k − 1)·epsilon, the largest over datasets of up to 9 records.
  With the default 10 trees the same pattern (20 records) reaches 19·epsilon.

`forest_exact.py` computes the exact values; this script also measures each event on
diffprivlib's own forest and certifies a lower bound with 95 % confidence.
"""

import sys

from forest_exact import event_probability, pair_epsilon
from forest_fits import certified_epsilon, fitted_labels

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
WORST = (0, 1, 1, 0, 0, 1, 1, 0)
CASES = [  # (name, dataset with the likelier event, its neighbour)
    ("[0, 1] vs [0, 1, 0]", (0, 1), (0, 1, 0)),
    ("8 records in tied pairs vs one 0 added", WORST, WORST + (0,)),
]


def label_law_differs(tree: int, d0, d1) -> bool:
    def one(labels):
        return labels[:, tree] == 1

    p0, p1 = (event_probability(d, one, 4, 1.0, shuffle=False) for d in (d0, d1))
    return abs(p0 - p1) > 1e-12


for seed, (name, likelier, other) in enumerate(CASES):
    exact, outcome = pair_epsilon(likelier, other, 4, 1.0, shuffle=False)
    # the event: the worst outcome's labels on the trees whose law differs between the datasets
    trees = [t for t in range(4) if label_law_differs(t, likelier, other)]

    def event(labels, trees=trees, outcome=outcome):
        return (labels[:, trees] == [outcome[t] for t in trees]).all(axis=1)

    p = [event_probability(d, event, 4, 1.0, False) for d in (likelier, other)]
    hits = [
        int(event(fitted_labels(d, RUNS, seed=10 * seed + side)).sum())
        for side, d in enumerate((likelier, other))
    ]
    shown = {t: outcome[t] for t in trees}
    print(
        f"{name}: event (tree: label) {shown}; P = {p[0]:.4f} vs {p[1]:.5f} exact,"
        f" {hits[0] / RUNS:.4f} vs {hits[1] / RUNS:.5f} measured ({RUNS} fits each)"
    )
    print(
        f"  exact epsilon = {exact:.2f}; certified epsilon >= {certified_epsilon(*hits, RUNS):.2f}"
        " (95 %); claimed 1"
    )
