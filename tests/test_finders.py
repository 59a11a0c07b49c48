import numpy as np
import pytest

from dpfuzz import ConfigError, Domain, GridFinder, RandomFinder
from dpfuzz.finders import classic_pairs, make_finder

DOMAINS = [
    Domain(low=0.0, high=1.0, min_size=0, max_size=5),
    Domain(low=0.0, high=1.0, min_size=1, max_size=5, relation="substitute"),
    Domain(low=0, high=4, min_size=0, max_size=3, dtype="int"),
    Domain(low=-1.0, high=1.0, min_size=1, max_size=4, dim=3),
]


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("finder", [RandomFinder(), RandomFinder(patterns=False), GridFinder()])
def test_finders_propose_valid_neighbours(finder, domain, rng):
    finder.start(domain, rng)
    for _ in range(40):
        pair = finder.ask()
        domain.validate_pair(pair)
        finder.tell(pair, 0.0)


def test_random_finder_tries_the_classic_patterns_first(rng):
    domain = DOMAINS[0]
    finder = RandomFinder()
    finder.start(domain, rng)
    patterns = classic_pairs(domain)
    assert [finder.ask() for _ in patterns] == patterns
    # Extreme records at the extreme sizes: [] + [1], [] + [0], four 1s + a 0, four 0s + a 1.
    assert patterns[0].d0.size == 0 and patterns[-1].d1.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]


def test_grid_is_deterministic_corners_first_and_refines(rng):
    domain = DOMAINS[0]
    first, second = GridFinder(points=2), GridFinder(points=2)
    first.start(domain, np.random.default_rng(0))
    second.start(domain, np.random.default_rng(1))
    pairs = [first.ask() for _ in range(30)]
    assert pairs == [second.ask() for _ in range(30)]  # the grid ignores randomness
    keys = {(tuple(p.d0.tolist()), tuple(p.d1.tolist())) for p in pairs}
    assert len(keys) == 30  # no pair twice: a 2-point grid has 6 distinct pairs, the rest are refinements
    corners = {(tuple(p.d0.tolist()), tuple(p.d1.tolist())) for p in pairs[:6]}
    assert {(tuple(p.d0.tolist()), tuple(p.d1.tolist())) for p in classic_pairs(domain)} <= corners


def test_unknown_finder_names():
    with pytest.raises(ConfigError, match="unknown finder 'vizier'; choose one of \\['random', 'grid'\\]"):
        make_finder("vizier")
