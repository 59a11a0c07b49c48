import numpy as np
import pytest

from dpfuzz import DatasetPair, Domain


@pytest.mark.parametrize(
    "domain",
    [
        Domain(low=0.0, high=1.0, min_size=0, max_size=5),
        Domain(low=-2, high=3, min_size=1, max_size=4, dtype="int", relation="substitute"),
        Domain(low=[0.0, -1.0], high=[1.0, 1.0], dim=2, min_size=0, max_size=3),
    ],
)
def test_random_pairs_are_valid_neighbours(domain, rng):
    for _ in range(200):
        pair = domain.random_pair(rng)
        domain.validate_pair(pair)
        domain.validate_pair(pair.swapped())
        assert pair.d0.dtype == domain.numpy_dtype


def test_add_remove_pairs_add_and_remove(rng):
    domain = Domain(min_size=0, max_size=3)
    sizes = {(len(p.d0), len(p.d1)) for p in (domain.random_pair(rng) for _ in range(300))}
    assert {(0, 1), (3, 2)} <= sizes and any(a > b for a, b in sizes) and any(a < b for a, b in sizes)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"low": 1.0, "high": 0.0}, "low must be <= high"),
        ({"min_size": 3, "max_size": 2}, "max_size .2. must be >= min_size .3."),
        ({"min_size": 2, "max_size": 2}, "widen the size range"),
        ({"relation": "swap"}, "relation must be one of"),
        ({"dtype": "complex"}, "dtype must be one of"),
        ({"dim": 0}, "dim must be None"),
        ({"low": 0.5, "dtype": "int"}, "integer bounds"),
        ({"low": float("nan")}, "must be finite"),
        ({"min_size": -1}, "non-negative int"),
    ],
)
def test_invalid_domains_name_the_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Domain(**kwargs)


def test_validate_pair_rejects_non_neighbours():
    domain = Domain(low=0.0, high=1.0, min_size=0, max_size=5)
    domain.validate_pair(DatasetPair(np.array([0.2, 0.5]), np.array([0.5])))  # order-free
    with pytest.raises(ValueError, match="not add_remove neighbours: d1 removes 1 and adds 1"):
        domain.validate_pair(DatasetPair(np.array([0.2, 0.5]), np.array([0.3, 0.5])))
    with pytest.raises(ValueError, match="outside"):
        domain.validate_pair(DatasetPair(np.array([2.0]), np.array([])))
    with pytest.raises(ValueError, match="has 6 records; the domain allows 0 to 5"):
        domain.validate_pair(DatasetPair(np.zeros(6), np.zeros(5)))
    with pytest.raises(ValueError, match=r"shape \(1, 2\)"):
        domain.validate_pair(DatasetPair(np.zeros((1, 2)), np.zeros((0, 2))))
    substitute = Domain(min_size=1, max_size=3, relation="substitute")
    substitute.validate_pair(DatasetPair(np.array([0.1, 0.2]), np.array([0.9, 0.1])))
    with pytest.raises(ValueError, match="not substitute neighbours"):
        substitute.validate_pair(DatasetPair(np.array([0.1]), np.array([0.1])))


def test_dataset_helper_validates_and_casts():
    domain = Domain(low=0, high=4, dtype="int", min_size=0, max_size=3)
    assert domain.dataset([1, 4]).dtype == np.int64
    with pytest.raises(ValueError, match="non-integer"):
        domain.dataset([1.5])
