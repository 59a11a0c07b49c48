import numpy as np
import pytest

from dpfuzz import DatasetPair, Domain, GridFinder, InvalidArgument, RandomFinder
from dpfuzz.finders import make_finder

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
    patterns = domain.relation.classic_pairs(domain)
    assert [finder.ask() for _ in patterns] == patterns
    # Extreme records at the extreme sizes: [] + [1], [] + [0], four 1s + a 0, four 0s + a 1;
    # then the turn-around: [0.75] + [0]
    assert patterns[0].d0.size == 0 and patterns[3].d1.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert patterns[4] == DatasetPair(np.array([0.75]), np.array([0.75, 0.0]))


@pytest.mark.parametrize(
    "domain, turn_around",
    [
        (
            Domain(low=-1.0, high=1.0, dim=2, min_size=0, max_size=4),
            DatasetPair(np.array([[0.5, 0.5]]), np.array([[0.5, 0.5], [-1.0, -1.0]])),
        ),
        (
            Domain(low=-1.0, high=1.0, min_size=3, max_size=5, relation="substitute"),
            DatasetPair(np.array([0.25, 0.25, 0.25]), np.array([0.25, 0.25, -1.0])),
        ),
        (
            Domain(low=-4, high=4, dtype="int", min_size=0, max_size=6, distance=2),
            DatasetPair(np.array([4]), np.array([4, -4, -4])),
        ),
    ],
)
def test_the_turn_around_pair_turns_a_centred_sum_around(domain, turn_around):
    pairs = domain.relation.classic_pairs(domain)
    assert pairs[-1] == turn_around and turn_around not in pairs[:-1]
    assert np.sign(turn_around.d0.sum(axis=0)) == pytest.approx(
        -np.sign(turn_around.d1.sum(axis=0))
    )
    # the grid tries it right after its corners
    assert turn_around in domain.relation.lattice(domain, 2)[: len(pairs) + 4]


def test_no_turn_around_pair_where_the_sizes_or_integer_records_leave_no_room():
    for domain in (
        Domain(min_size=0, max_size=1),
        Domain(min_size=1, max_size=1, relation="substitute"),
    ):
        assert len(domain.relation.classic_pairs(domain)) == 2
    # bits: the base rounds to 1, and adding a 0 leaves the total where it was
    bits = Domain(low=0, high=1, dtype="int", max_size=5)
    assert len(bits.relation.classic_pairs(bits)) == 4


def test_the_classic_pairs_alone_refute_a_clipped_total_that_random_pairs_miss():
    # ClippedTotalSum moves by 2C only where one record turns the total around; the extreme pairs
    # move it by at most C (mechanisms/clipping.py)
    item = entry("ClippedTotalSum")
    pairs = item.domain().relation.classic_pairs(item.domain())
    report = audit(item(), item.claim(), item.domain(), finder="random", trials=len(pairs), seed=0)
    assert report.violated and report.witness in (pairs[-1], pairs[-1].swapped())
    # without it: the extreme pairs hold the claim
    extremes = audit(item(), item.claim(), item.domain(), finder=pairs[:-1], seed=0)
    assert not extremes.violated


def test_grid_is_deterministic_corners_first_and_refines(rng):
    domain = DOMAINS[0]
    first, second = GridFinder(points=2), GridFinder(points=2)
    first.start(domain, np.random.default_rng(0))
    second.start(domain, np.random.default_rng(1))
    pairs = [first.ask() for _ in range(30)]
    assert pairs == [second.ask() for _ in range(30)]  # the grid ignores randomness
    keys = {(tuple(p.d0.tolist()), tuple(p.d1.tolist())) for p in pairs}
    # no pair twice: a 2-point grid has 6 distinct pairs, the rest are refinements
    assert len(keys) == 30
    corners = {(tuple(p.d0.tolist()), tuple(p.d1.tolist())) for p in pairs[:6]}
    *extremes, turn_around = domain.relation.classic_pairs(domain)
    assert {(tuple(p.d0.tolist()), tuple(p.d1.tolist())) for p in extremes} <= corners
    assert pairs[6] == turn_around


def test_unknown_finder_names():
    with pytest.raises(
        InvalidArgument,
        match=(
            "finder must be one of 'random', 'grid', 'hypothesis', 'vizier'; got 'grdi'. Did you"
            " mean 'grid'"
        ),
    ):
        make_finder("grdi")


# -- parameterisation, quasi-random, groups ------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dpfuzz import audit  # noqa: E402
from dpfuzz.catalogue import entry  # noqa: E402
from dpfuzz.engine import AuditPolicy  # noqa: E402
from dpfuzz.finders import HypothesisFinder  # noqa: E402
from dpfuzz.strategies import neighbouring_pairs  # noqa: E402

RELATIONS = DOMAINS + [
    Domain(low=0.0, high=2.0, min_size=4, max_size=4, relation="linf"),
    Domain(min_size=0, max_size=6, distance=3),
    Domain(low=0, high=3, dtype="int", relation="substitute", min_size=1, max_size=5, distance=2),
    Domain(dim=3, min_size=1, max_size=6, labelled=True),
    Domain(dim=2, min_size=1, max_size=3, labelled=True, relation="substitute"),
]


@pytest.mark.parametrize(
    "domain", RELATIONS, ids=lambda d: f"{d.relation}-{d.dtype}-k{d.distance}-dim{d.dim}"
)
def test_every_point_of_the_unit_cube_is_a_neighbouring_pair(domain):
    @settings(max_examples=200, deadline=None, database=None)
    @given(
        unit=st.lists(
            st.floats(0, 1),
            min_size=domain.relation.unit_dimension(domain),
            max_size=domain.relation.unit_dimension(domain),
        )
    )
    def check(unit):
        domain.validate_pair(domain.relation.pair_from_unit(domain, np.array(unit)))

    check()


@pytest.mark.parametrize(
    "domain", RELATIONS, ids=lambda d: f"{d.relation}-{d.dtype}-k{d.distance}-dim{d.dim}"
)
def test_strategies_and_finders_respect_every_relation(domain, rng):
    @settings(max_examples=100, deadline=None, database=None)
    @given(pair=neighbouring_pairs(domain))
    def check(pair):
        domain.validate_pair(pair)

    check()
    for finder in (RandomFinder(sampler="sobol"), GridFinder()):
        finder.start(domain, rng)
        for _ in range(40):
            domain.validate_pair(finder.ask())


@pytest.mark.parametrize(
    "domain", RELATIONS, ids=lambda d: f"{d.relation}-{d.dtype}-k{d.distance}-dim{d.dim}"
)
def test_classic_units_are_the_classic_pairs_on_the_unit_cube(domain):
    assert [
        domain.relation.pair_from_unit(domain, unit)
        for unit in domain.relation.classic_units(domain)
    ] == domain.relation.classic_pairs(domain)


def test_a_labelled_domain_proposes_records_that_differ_only_in_their_label():
    domain = Domain(dim=3, min_size=1, max_size=6, labelled=True)
    plain = Domain(dim=3, min_size=1, max_size=6)
    pairs = domain.relation.classic_pairs(domain)
    # the plain domain's corner pairs first, unchanged; then the same features, the other label
    assert pairs[:4] == plain.relation.classic_pairs(plain)[:4]
    assert [(p.d0[0].tolist(), p.d1[-1].tolist(), len(p.d0)) for p in pairs[4:8]] == [
        ([1.0, 1.0, 1.0], [1.0, 1.0, 0.0], 1),
        ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], 1),
        ([1.0, 1.0, 1.0], [1.0, 1.0, 0.0], 5),
        ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], 5),
    ]
    # the grid tries them right after its corners; no turn-around pair follows them
    lattice = domain.relation.lattice(domain, 3)
    corners = 8  # two sizes × (base, other) in {0, 1}²
    assert lattice[:corners] == plain.relation.lattice(plain, 3)[:corners]
    assert lattice[corners : corners + 4] == pairs[4:] and len(pairs) == 8
    assert domain.to_dict()["labelled"] is True and "labelled" not in plain.to_dict()
    with pytest.raises(InvalidArgument, match="labelled=True needs vector records"):
        Domain(labelled=True)
    with pytest.raises(InvalidArgument, match="labelled must be True or False"):
        Domain(dim=2, labelled="yes")


def test_hypothesis_finder_tries_the_classic_patterns_first(rng):
    domain = RELATIONS[0]
    finder = HypothesisFinder()
    finder.start(domain, rng)
    proposed = []
    patterns = domain.relation.classic_pairs(domain)[:-1]
    for _ in patterns:
        proposed.append(finder.ask())
        finder.tell(proposed[-1], -1.0)
    finder.stop()
    # no turn-around pair: an example that looks violating ends the search (decision 0039)
    assert proposed == patterns
    assert domain.relation.turn_around_pairs(domain) == domain.relation.classic_pairs(domain)[-1:]


def test_groups_of_k_records_are_neighbours():
    domain = Domain(min_size=0, max_size=5, distance=2)
    domain.validate_pair(DatasetPair(np.array([0.1]), np.array([0.1, 0.5, 0.7])))
    with pytest.raises(ValueError, match="removes 0 and adds 1"):
        domain.validate_pair(DatasetPair(np.array([0.1]), np.array([0.1, 0.5])))
    with pytest.raises(ValueError, match="distance must be an int >= 1"):
        Domain(distance=0)
    assert (
        domain.relation.classic_pairs(domain)[0].d1.tolist() == [0.0, 0.0]
        and domain.relation.classic_pairs(domain)[0].d0.size == 0
    )


def test_sobol_search_finds_the_median_bug_that_patterns_miss():
    # ExponentialMedianNoHalf violates only on datasets with interior records (see its witness);
    # extreme-record patterns never show it, quasi-random pairs do within 20 trials.
    item = entry("ExponentialMedianNoHalf")
    found = [
        audit(
            item(),
            item.claim(),
            item.domain(),
            finder=RandomFinder(sampler="sobol"),
            trials=20,
            samples=20_000,
            seed=seed,
        ).violated
        for seed in range(3)
    ]
    assert all(found)


# -- Hypothesis finder ----------------------------------------------------------------------------
@pytest.mark.slow
def test_hypothesis_finder_shrinks_the_witness_reproducibly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    item = entry("NonDPLaplaceMean1")
    reports = [
        audit(
            item(),
            item.claim(),
            item.domain(),
            finder=HypothesisFinder(patterns=False),
            trials=30,
            samples=20_000,
            seed=4,
        )
        for _ in range(2)
    ]
    first, second = reports
    assert (
        first.violated
        and first.history_pairs() == second.history_pairs()
        and first.witness == second.witness
    )
    # Shrunk: the smallest neighbouring pair of the domain (one record against two), simple values.
    assert {len(first.witness.d0), len(first.witness.d1)} == {1, 2}
    assert set(np.concatenate([first.witness.d0, first.witness.d1]).tolist()) <= {0.0, 1.0}
    assert not (tmp_path / ".hypothesis").exists()  # no stray example database


def test_history_replays_exactly():
    # (a fixed list of pairs races exactly its trials, so the original does too:
    # docs/decisions/0017)
    item = entry("NonDPLaplaceMean2")
    report = audit(
        item(),
        item.claim(),
        item.domain(),
        trials=4,
        samples=5_000,
        seed=9,
        policy=AuditPolicy(racing_fill=False),
    )
    replayed = audit(
        item(),
        item.claim(),
        item.domain(),
        finder=report.history_pairs(),
        trials=4,
        samples=5_000,
        seed=9,
    )
    assert [record.score for record in replayed.history] == [
        record.score for record in report.history
    ]


# -- Vizier
# -----------------------------------------------------------------------------------------
def _vizier_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("vizier") is not None


def test_vizier_finder_needs_its_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "vizier", None)  # import vizier → ImportError
    with pytest.raises(InvalidArgument, match=r"pip install 'dpfuzz\[vizier\]'"):
        make_finder("vizier")


@pytest.mark.slow
def test_vizier_finder_audits_reproducibly():
    if not _vizier_available():
        if __import__("os").environ.get("CI"):
            pytest.fail("CI installs the vizier extra; the vizier finder must be tested there")
        pytest.skip("google-vizier not installed (pip install 'dpfuzz[vizier]')")
    item = entry("NonDPLaplaceMean1")
    reports = [
        # fixed sampling: every trial runs, so the GP's suggestions after the patterns are exercised
        audit(
            item(),
            item.claim(),
            item.domain(),
            finder="vizier",
            trials=10,
            samples=20_000,
            seed=1,
            sampling="fixed",
        )
        for _ in range(2)
    ]
    assert reports[0].violated and reports[0].history_pairs() == reports[1].history_pairs()
    patterns = item.domain().relation.classic_pairs(item.domain())
    assert reports[0].history_pairs()[: len(patterns)] == patterns  # then the GP's suggestions
    latency = reports[0].finder_details["median_suggestion_seconds"]
    print(f"vizier: median suggestion latency {latency:.2f} s")
    assert latency is not None


@pytest.mark.slow
def test_the_default_search_refutes_the_median_bug_that_needs_interior_records():
    # ExponentialMedianNoHalf violates only on datasets with interior records; the racing fills
    # the quick budget's spare search draws with more random pairs (docs/decisions/0017).
    item = entry("ExponentialMedianNoHalf")
    assert all(
        audit(item(), item.claim(), item.domain(), budget="quick", seed=seed).violated
        for seed in range(5)
    )
