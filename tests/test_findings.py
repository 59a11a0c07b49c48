"""The findings' standalone scripts: their exact numbers against closed forms, their model of
diffprivlib's forest against real fits, and each script run at a small size."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest

FINDINGS = Path(__file__).resolve().parents[1] / "findings"


@pytest.fixture(scope="module")
def exact():
    sys.path.insert(0, str(FINDINGS))
    try:
        import forest_exact

        yield forest_exact
    finally:
        sys.path.remove(str(FINDINGS))


def test_the_forest_exact_values_match_their_closed_forms(exact):
    # [0, 1] → [0, 1, 0] at k = 4: tree 1 goes from empty (½) to one label-1 record, tree 2
    # from a 1 to a 0; the outcome (tree 1 says 0, tree 2 says 1) gives ln(2e² − e)
    witness, _ = exact.pair_epsilon((0, 1), (0, 1, 0), 4, 1.0, shuffle=False)
    assert witness == pytest.approx(math.log(2 * math.e**2 - math.e))
    # label pairs 0, 1, 1, 0, …: every tree a tie; one record more moves every boundary
    for trees in (4, 10):
        tied = tuple((j + 1) // 2 % 2 for j in range(2 * trees))
        worst, _ = exact.pair_epsilon(tied, tied + (0,), trees, 1.0, shuffle=False)
        assert worst == pytest.approx(2 * trees - 1)
    assert exact.worst_add_remove(4, 1.0, max_records=9)[0] == pytest.approx(7)
    # identical records: at 4 trees one more record changes one tree's count by one (ε exactly
    # 1); at 10 trees five → six empties trees 2 and 4 (ratio 2 − e⁻¹ each) and fills trees 1,
    # 3 and 5 (ratio e each)
    for shuffle in (False, True):
        four, _ = exact.pair_epsilon((0,) * 5, (0,) * 6, 4, 1.0, shuffle)
        ten, _ = exact.pair_epsilon((0,) * 5, (0,) * 6, 10, 1.0, shuffle)
        assert four == pytest.approx(1.0) and ten == pytest.approx(
            2 * math.log(2 - math.exp(-1)) + 3
        )
    # shuffle=True, [0, 0, 0] → [0, 0, 0, 1]: the 1 lands in each of the 4 trees with ¼; q is
    # the probability that a one-record leaf takes the other label
    q = math.exp(-1) / 2
    before = q**3 / 2
    after = q**4 / 4 + 3 / 4 * (1 - q) ** 2 * q**2
    shuffled, outcome = exact.pair_epsilon((0, 0, 0), (0, 0, 0, 1), 4, 1.0, shuffle=True)
    assert outcome == (1, 1, 1, 0) and shuffled == pytest.approx(math.log(after / before))


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.slow
def test_the_exact_model_matches_diffprivlibs_own_forest(exact, shuffle):
    pytest.importorskip("diffprivlib")
    import forest_fits

    runs = 400
    for seed, labels in enumerate([(0, 1), (0, 1, 0), (0, 0, 0, 1)]):
        fitted = forest_fits.fitted_labels(labels, runs, seed=seed, shuffle=shuffle)
        for tree in range(4):
            p = exact.event_probability(labels, lambda b, t=tree: b[:, t] == 1, 4, 1.0, shuffle)
            hits = int(np.sum(fitted[:, tree] == 1))
            assert binomtest(hits, runs, p).pvalue > 1e-4, (labels, tree, hits, p)


@pytest.mark.parametrize(
    ("script", "library", "size"),
    [
        ("diffprivlib_forest_add_remove.py", "diffprivlib", 60),
        ("diffprivlib_forest_shuffle.py", "diffprivlib", 60),
        ("diffprivlib_classes_from_data.py", "diffprivlib", 60),
        ("diffprivlib_kmeans_attributes.py", "diffprivlib", 60),
        ("diffprivlib_sum_add_remove.py", "diffprivlib", 60),
        ("forest_exact.py", "diffprivlib", 60),
        ("opacus_ghost_clipping_shape.py", "opacus", 60),
        # beside smartnoise-sql (README); 40 MWEM and 20 MST fits per side
        ("smartnoise_synth_categories.py", "snsynth", 40),
    ],
)
@pytest.mark.slow
def test_each_findings_script_runs_at_a_small_size(script, library, size):
    pytest.importorskip(library)
    done = subprocess.run(
        [sys.executable, str(FINDINGS / script), str(size)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "epsilon" in done.stdout or "ε" in done.stdout
