import numpy as np
import pytest

from dpfuzz import DatasetPair, Domain, InvalidArgument


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
    assert (
        {(0, 1), (3, 2)} <= sizes and any(a > b for a, b in sizes) and any(a < b for a, b in sizes)
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"low": 1.0, "high": 0.0}, "low must be <= high"),
        ({"min_size": 3, "max_size": 2}, "max_size .2. must be >= min_size .3."),
        ({"min_size": 2, "max_size": 2}, "widen the size range"),
        ({"relation": "swap"}, "relation must be one of"),
        ({"relation": "add_remvoe"}, "Did you mean 'add_remove'"),
        ({"dtype": "complex"}, "dtype must be 'int' or 'float'"),
        ({"dim": 0}, r"dim \(None for scalar records\) must be an int >= 1"),
        ({"low": 0.5, "dtype": "int"}, "integer bounds"),
        ({"low": float("nan")}, "must be finite"),
        ({"min_size": -1}, "min_size must be an int >= 0"),
        ({"relation": "linf", "distance": 2}, "distance must be 1"),
        ({"relation": "substitute", "sensitivity": 2.0}, "sensitivity belongs to relation='linf'"),
    ],
)
def test_invalid_domains_name_the_value(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        Domain(**kwargs)


@pytest.mark.parametrize("dtype", [int, "int", np.int64, np.dtype("int32")])
def test_numpy_style_integer_dtypes_are_accepted(dtype):
    # Issue 13: Domain(dtype=int), as in np.zeros(3, dtype=int), was rejected.
    domain = Domain(low=0, high=3, dtype=dtype)
    assert domain.dtype == "int" and domain.to_dict()["dtype"] == "int"
    pair = domain.random_pair(np.random.default_rng(0))
    assert all(np.array_equal(d, np.round(d)) for d in pair)


@pytest.mark.parametrize("dtype", [float, "float", np.float32])
def test_float_dtypes_are_accepted(dtype):
    assert Domain(dtype=dtype).dtype == "float"


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


def test_a_long_pairs_listing_shows_the_records_that_differ():
    # A 10-record substitution at the last record: the listings cut after 8 records showed d0 and
    # d1 identical; they show the records around the first difference.
    from dpfuzz import Domain

    d0 = np.arange(10) / 10
    d1 = d0.copy()
    d1[9] = 0.0
    _, shown0, shown1 = Domain(max_size=12, relation="substitute").describe_pair(
        DatasetPair(d0, d1)
    )
    assert shown0 != shown1 and "0.9 (10 records" in shown0 and ", 0 (10 records" in shown1
    # an empty dataset beside one record: the difference is the added record
    assert Domain(max_size=3).describe_pair(DatasetPair(np.array([]), np.array([1.0])))[1:] == [
        "d0 = []",
        "d1 = [1]",
    ]


@pytest.mark.parametrize(
    "bounds, message",
    [
        ({"low": "0"}, "must be a number or one per coordinate"),
        ({"low": True}, "got bool"),
        ({"low": -1e308, "high": 1e308}, "would overflow"),
    ],
)
def test_domain_bounds_are_numbers_whose_differences_stay_finite(bounds, message):
    with pytest.raises(InvalidArgument, match=message):
        Domain(**bounds)
