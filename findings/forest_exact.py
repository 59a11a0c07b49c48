"""Exact privacy loss of diffprivlib 0.6.6's RandomForestClassifier on records at one point.

Needs only numpy. Used by the forest reproductions beside it; run it alone for the tables:

    python findings/forest_exact.py

Model (read from diffprivlib's ``models/forest.py``). Every record sits at one point p, so each
tree's prediction at p is the label of the one leaf holding p. A leaf with class counts
(c0, c1) is labelled by ``PermuteAndFlip(ε, sensitivity=1, monotonic=True)``: with d = c1 − c0,

    P(label 1) = 1 − e^(−εd)/2 if d ≥ 0,   e^(εd)/2 if d < 0,

and a leaf without records (a tree without records) is labelled uniformly. The trees' labels
are independent given which records each tree holds. Tree i holds the records at the ranks r
with ``floor(r / (n / k)) = i``; the rank of record j is j (``shuffle=False``) or a uniformly
random permutation of 0..n−1 (``shuffle=True``).

A forest's outputs here are k bits, every outcome has positive probability, and the pure-DP ε of
a pair is the largest |ln P(o) − ln P′(o)| over the 2^k outcomes o.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def label_one_probability(zeros: np.ndarray, ones: np.ndarray, epsilon: float) -> np.ndarray:
    """P(a leaf with these class counts is labelled 1), element-wise."""
    d = np.asarray(ones, dtype=float) - np.asarray(zeros, dtype=float)
    return np.where(d >= 0, 1 - np.exp(-epsilon * np.abs(d)) / 2, np.exp(-epsilon * np.abs(d)) / 2)


def tree_of_rank(n: int, trees: int) -> np.ndarray:
    """The tree of each rank 0..n−1, as diffprivlib computes it (floating-point division)."""
    return (np.arange(n) // (n / trees)).astype(int)


def outcomes(trees: int) -> np.ndarray:
    """Every forest outcome: a (2^trees, trees) array of 0/1 labels."""
    return np.array(list(itertools.product((0, 1), repeat=trees)))


def outcome_probabilities(labels, trees: int, epsilon: float, shuffle: bool) -> np.ndarray:
    """P(each outcome of `outcomes(trees)`) for a forest fitted on records with these labels."""
    labels = np.asarray(labels, dtype=int)
    n = len(labels)
    bits = outcomes(trees)
    if not shuffle:
        return _product(bits, _tree_label_one(labels, trees, epsilon))
    # a uniform permutation splits the labels between the trees' blocks hypergeometrically
    sizes = np.bincount(tree_of_rank(n, trees), minlength=trees) if n else np.zeros(trees, int)
    total_ones = int(labels.sum())
    result = np.zeros(len(bits))
    for split in itertools.product(*(range(size + 1) for size in sizes)):
        if sum(split) != total_ones:
            continue
        weight = math.prod(math.comb(int(s), a) for s, a in zip(sizes, split)) / math.comb(
            n, total_ones
        )
        ones = np.array(split)
        result += weight * _product(bits, label_one_probability(sizes - ones, ones, epsilon))
    return result


def event_probability(labels, event, trees: int, epsilon: float, shuffle: bool) -> float:
    """P(the forest's labels at p fall in `event`), a function from an (m, trees) array of
    labels to m booleans."""
    bits = outcomes(trees)
    return float(outcome_probabilities(labels, trees, epsilon, shuffle)[event(bits)].sum())


def _tree_label_one(labels, trees: int, epsilon: float) -> np.ndarray:
    """P(each tree labels p with 1) when records are assigned by position."""
    labels = np.asarray(labels, dtype=int)
    tree = tree_of_rank(len(labels), trees)
    ones = np.bincount(tree, weights=labels, minlength=trees)
    return label_one_probability(np.bincount(tree, minlength=trees) - ones, ones, epsilon)


def _product(bits: np.ndarray, one: np.ndarray) -> np.ndarray:
    return np.prod(np.where(bits == 1, one, 1 - one), axis=1)


def pair_epsilon(d0, d1, trees: int, epsilon: float, shuffle: bool) -> tuple[float, tuple]:
    """(exact ε of the pair, the outcome where the largest |log ratio| sits)."""
    if not shuffle:  # independent trees: the worst outcome takes each tree's worse label
        one0, one1 = (_tree_label_one(labels, trees, epsilon) for labels in (d0, d1))
        ratios = np.log(np.stack([1 - one0, one0])) - np.log(np.stack([1 - one1, one1]))
        sign = 1 if ratios.max(axis=0).sum() >= (-ratios).max(axis=0).sum() else -1
        labels = (sign * ratios).argmax(axis=0)
        return float((sign * ratios).max(axis=0).sum()), tuple(int(b) for b in labels)
    p0 = outcome_probabilities(d0, trees, epsilon, shuffle)
    p1 = outcome_probabilities(d1, trees, epsilon, shuffle)
    loss = np.abs(np.log(p0) - np.log(p1))
    worst = int(np.argmax(loss))
    return float(loss[worst]), tuple(int(b) for b in outcomes(trees)[worst])


def add_remove_neighbours(labels: tuple) -> list[tuple]:
    """Every label sequence with one record inserted (any label, any position)."""
    return sorted(
        {labels[:at] + (label,) + labels[at:] for at in range(len(labels) + 1) for label in (0, 1)}
    )


def worst_add_remove(
    trees: int, epsilon: float, max_records: int, min_records: int = 0, shuffle: bool = False
) -> tuple[float, tuple, tuple]:
    """(largest exact ε, d0, d1) over label sequences of min_records..max_records − 1 records
    and every record added to them."""
    best: tuple[float, tuple, tuple] = (0.0, (), ())
    for n in range(min_records, max_records):
        for labels in itertools.product((0, 1), repeat=n):
            for larger in add_remove_neighbours(labels):
                loss, _ = pair_epsilon(labels, larger, trees, epsilon, shuffle)
                if loss > best[0] + 1e-12:
                    best = (loss, labels, larger)
    return best


if __name__ == "__main__":
    EPSILON = 1.0
    print("shuffle=False, k = 4, ε = 1")
    loss, event = pair_epsilon((0, 1), (0, 1, 0), 4, EPSILON, shuffle=False)
    print(f"  [0, 1] → [0, 1, 0]: exact ε = {loss:.3f} at outcome {event}")
    loss, d0, d1 = worst_add_remove(4, EPSILON, max_records=9)
    print(f"  worst over ≤ 9 records: ε = {loss:.3f} ({loss / EPSILON:.1f}·ε) for {d0} → {d1}")
    loss, d0, d1 = worst_add_remove(10, EPSILON, max_records=13, min_records=10)
    print(f"  k = 10, 10–13 records (no empty tree): ε = {loss:.3f} for {d0} → {d1}")
    for shuffle in (False, True):
        loss, _ = pair_epsilon((0,) * 5, (0,) * 6, 10, EPSILON, shuffle=shuffle)
        print(f"  k = 10, shuffle={shuffle}: five identical records → six: exact ε = {loss:.3f}")
    print("shuffle=True, k = 4, ε = 1")
    loss, event = pair_epsilon((0, 0, 0), (0, 0, 0, 1), 4, EPSILON, shuffle=True)
    print(f"  [0, 0, 0] → [0, 0, 0, 1]: exact ε = {loss:.3f} at outcome {event}")
    loss, d0, d1 = worst_add_remove(4, EPSILON, max_records=7, shuffle=True)
    print(f"  worst over ≤ 7 records: ε = {loss:.3f} for {d0} → {d1}")
