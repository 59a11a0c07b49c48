"""Event selection composed into the one-event testers (`dpfuzz.testers.selection`)."""

import math

import numpy as np
import pytest

from dpfuzz import PureDP
from dpfuzz.testers import HistogramTester, HockeyStickTester
from dpfuzz.testers.events import Interval, OutputValue, ScoreEvent
from dpfuzz.testers.histogram import Binning

BETA = 0.05


class PositiveOutputs:
    """A selection that always chooses {x > 0}, and counts its fits."""

    shares_fits = False

    def __init__(self):
        self.fits = 0

    def features(self, samples):
        return samples

    def fit(self, train0, train1, claim, beta, rng, eval_size, both):
        self.fits += 1
        event = ScoreEvent(OutputValue(), Interval(0.0, math.inf))
        return [(event, 0.0)] * (2 if both else 1)


def test_a_tester_certifies_the_event_its_selection_chooses_on_the_held_out_counts():
    rng = np.random.default_rng(0)
    selection = PositiveOutputs()
    tester = HockeyStickTester(selection=selection)
    p, q = rng.normal(1.0, 1.0, 4_000), rng.normal(0.0, 1.0, 4_000)
    result = tester.test(p, q, PureDP(0.1), BETA, rng)
    assert result.event == "x > 0" and selection.fits == 1
    assert (result.details["count_p"], result.details["count_q"]) == (
        int((p[2_000:] > 0).sum()),
        int((q[2_000:] > 0).sum()),
    )


def test_a_selection_that_shares_no_fits_is_fitted_once_per_direction():
    selection = PositiveOutputs()
    tester = HockeyStickTester(selection=selection)
    rng = np.random.default_rng(0)
    forward, backward = tester.fit_both(
        rng.normal(size=100), rng.normal(size=100), PureDP(1.0), BETA, rng
    )
    assert selection.fits == 2 and forward.interval == backward.interval
    assert not tester.shares_fits


def test_the_histogram_orients_a_pair_among_runs_of_its_own_bins():
    rng = np.random.default_rng(0)
    p, q = rng.integers(0, 5, 2_000), rng.integers(0, 5, 2_000) + (rng.random(2_000) < 0.5)
    event, reversed_ = HistogramTester().fit_oriented(p, q, PureDP(1.0), BETA, rng)
    assert isinstance(event.score, Binning) and reversed_ in (True, False)


@pytest.mark.parametrize("name", ["gammas", "describe_row", "column_name", "choose_epsilon"])
def test_methods_that_moved_to_the_selection_warn_and_still_work(name):
    tester = HockeyStickTester()
    with pytest.warns(DeprecationWarning, match=f"tester.selection.{name}"):
        moved = getattr(tester, name)
    assert moved == getattr(tester.selection, name)
    with pytest.raises(AttributeError, match="no_such_method"):
        tester.no_such_method  # noqa: B018
