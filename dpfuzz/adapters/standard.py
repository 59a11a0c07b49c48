"""Standard releases of each DP library, for `configs/libraries.toml`: each a function of
keyword parameters returning a `LibraryTarget`, importing its library on call (a missing library
raises `LibraryMissing`, and a campaign skips that target with the message).

Correct releases carry the library's own claim and convention; the misuse cases are marked in
the config with ``truth = "violates"`` and say here what is wrong.
"""

from __future__ import annotations

import importlib
from typing import Any

from dpfuzz.adapters import LibraryTarget
from dpfuzz.errors import InvalidArgument, LibraryMissing
from dpfuzz.validation import check_choice, did_you_mean


def _library(module: str, extra: str, own_environment: bool = False):
    try:
        return importlib.import_module(module)
    except ImportError as error:
        where = (
            " in an environment of its own, as its pins need (docs/guide/libraries.md)"
            if own_environment
            else ""
        )
        raise LibraryMissing(
            f'{module} is not installed: pip install "dpfuzz[{extra}]"{where} ({error}).'
        ) from error


def _opendp():
    dp = _library("opendp.prelude", "opendp")
    dp.enable_features("contrib")
    return dp


# -- OpenDP -------------------------------------------------------------------------------------
def opendp_sum(
    mechanism: str = "laplace", scale: float = 2.0, relation: str = "add_remove", max_size: int = 5
) -> LibraryTarget:
    """A clamped float sum on [−1, 1] with Laplace (ε-DP) or Gaussian (ρ-zCDP) noise, fast path."""
    from dpfuzz.adapters.opendp import opendp_target

    dp = _opendp()
    summed = (
        dp.vector_domain(dp.atom_domain(bounds=(-1.0, 1.0))),
        dp.symmetric_distance(),
    ) >> dp.t.then_sum()
    noise_domain = (dp.vector_domain(dp.atom_domain(T=float, nan=False)),)
    if mechanism == "laplace":
        measurement = summed >> dp.m.then_laplace(scale=scale)
        noise = dp.m.make_laplace(*noise_domain, dp.l1_distance(T=float), scale=scale)
    else:
        measurement = summed >> dp.m.then_gaussian(scale=scale)
        noise = dp.m.make_gaussian(*noise_domain, dp.l2_distance(T=float), scale=scale)
    return opendp_target(
        measurement,
        relation=relation,
        max_size=max_size,
        transformation=summed,
        noise=noise,
        name=f"OpenDP sum on [-1, 1] with {mechanism} noise (scale {scale:g})",
    )


def opendp_count(scale: float = 1.0, max_size: int = 5) -> LibraryTarget:
    """A count with (integer) Laplace noise, one call per release."""
    from dpfuzz.adapters.opendp import opendp_target

    dp = _opendp()
    counted = (
        dp.vector_domain(dp.atom_domain(bounds=(0, 1))),
        dp.symmetric_distance(),
    ) >> dp.t.then_count()
    return opendp_target(
        counted >> dp.m.then_laplace(scale=scale),
        max_size=max_size,
        name=f"OpenDP count with laplace noise (scale {scale:g})",
    )


OPENDP_MEASUREMENTS = (
    "private_quantile",
    "count_distinct",
    "noisy_max",
    "noisy_max_told_monotonic",
    "scalar_laplace",
    "scalar_gaussian",
)


def opendp_measurement(kind: str = "private_quantile", scale: float = 1.0) -> LibraryTarget:
    """One of OpenDP's other measurements, one call per release: the exponential-mechanism median
    of records in [0, 1] over 11 candidates (`make_private_quantile`), a count of distinct
    integers with Laplace noise, report-noisy-max of 3 integer answers (`make_noisy_max`), the same
    told its answers move monotonically (a misuse: the audited answers move either way), and
    Laplace or Gaussian noise on one answer (`AbsoluteDistance`)."""
    from dpfuzz.adapters.opendp import opendp_target

    dp = _opendp()
    check_choice("kind", kind, OPENDP_MEASUREMENTS)
    if kind == "private_quantile":
        records = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False))
        candidates = [index / 10 for index in range(11)]
        measurement = dp.m.make_private_quantile(
            records, dp.symmetric_distance(), dp.max_divergence(), candidates, 0.5, scale
        )
        return opendp_target(measurement, bounds=(0.0, 1.0), name="OpenDP private median")
    if kind == "count_distinct":
        bounded = dp.vector_domain(dp.atom_domain(bounds=(0, 3)))
        distinct = dp.t.make_count_distinct(bounded, dp.symmetric_distance())
        return opendp_target(
            distinct >> dp.m.then_laplace(scale), name="OpenDP count distinct + Laplace"
        )
    if kind.startswith("noisy_max"):
        metric = dp.linf_distance(T=int, monotonic=kind == "noisy_max_told_monotonic")
        integers = dp.vector_domain(dp.atom_domain(T=int))
        measurement = dp.m.make_noisy_max(integers, metric, dp.max_divergence(), scale=scale)
        return opendp_target(measurement, answers=3, name=f"OpenDP {kind.replace('_', ' ')}")
    scalar = dp.atom_domain(T=float, nan=False)
    if kind == "scalar_laplace":
        measurement = dp.m.make_laplace(scalar, dp.absolute_distance(T=float), scale=scale)
    else:
        measurement = dp.m.make_gaussian(scalar, dp.absolute_distance(T=float), scale=scale)
    return opendp_target(measurement, name=f"OpenDP {kind.replace('_', ' ')}")


def opendp_polars(
    statistic: str = "sum", group_by: str = "none", truncate: bool = False, **options: Any
) -> LibraryTarget:
    """OpenDP's Context API over Polars: one statistic of the values, ungrouped or per key
    (`dpfuzz.adapters.opendp_polars`)."""
    _library("polars", "opendp")
    from dpfuzz.adapters.opendp_polars import opendp_polars_query, statistic_query

    build = statistic_query(
        statistic, group_by=group_by, keys=options.get("keys", 3), truncate=truncate
    )
    where = "" if group_by == "none" else f" per key ({group_by} keys)"
    return opendp_polars_query(build, name=f"OpenDP Polars {statistic}{where}", **options)


# -- diffprivlib --------------------------------------------------------------------------------
def diffprivlib_tool_release(
    tool: str = "mean", epsilon: float = 1.0, relation: str | None = None, **arguments: Any
) -> LibraryTarget:
    """`diffprivlib.tools.<tool>` on records in [0, 1]; `relation="add_remove"` for the mean is
    the misuse: it divides by the actual n, which add/remove reveals."""
    from dpfuzz.adapters.diffprivlib import diffprivlib_tool

    diffprivlib = _library("diffprivlib", "diffprivlib")
    return diffprivlib_tool(
        getattr(diffprivlib.tools, tool),
        epsilon=epsilon,
        bounds=(0.0, 1.0),
        relation=relation,
        max_size=5,
        **arguments,
    )


def diffprivlib_laplace(epsilon: float = 1.0) -> LibraryTarget:
    """`diffprivlib.mechanisms.Laplace` with sensitivity 1 (correct in real arithmetic)."""
    from dpfuzz.adapters.diffprivlib import diffprivlib_mechanism

    diffprivlib = _library("diffprivlib", "diffprivlib")
    return diffprivlib_mechanism(diffprivlib.mechanisms.Laplace(epsilon=epsilon, sensitivity=1.0))


def diffprivlib_mechanism_release(
    mechanism: str = "Laplace", epsilon: float = 1.0, **arguments: Any
) -> LibraryTarget:
    """`diffprivlib.mechanisms.<mechanism>(epsilon=epsilon, sensitivity=1, **arguments)` on answers
    in [−10, 10] (bounded mechanisms: give ``lower=-10, upper=10``)."""
    from dpfuzz.adapters.diffprivlib import diffprivlib_mechanism

    mechanisms = _library("diffprivlib.mechanisms", "diffprivlib")
    if not hasattr(mechanisms, mechanism):
        names = [name for name in dir(mechanisms) if name[:1].isupper()]
        raise InvalidArgument(
            f"diffprivlib.mechanisms has no {mechanism!r}.{did_you_mean(mechanism, names)}"
        )
    arguments.setdefault("sensitivity", 1)
    return diffprivlib_mechanism(getattr(mechanisms, mechanism)(epsilon=epsilon, **arguments))


def diffprivlib_model_release(
    model: str = "LogisticRegression",
    epsilon: float = 1.0,
    relation: str | None = None,
    **arguments: Any,
) -> LibraryTarget:
    """`diffprivlib.models.<model>` fitted on up to 6 records in [0, 1]², releasing its parameters
    (`dpfuzz.adapters.diffprivlib.diffprivlib_model`)."""
    _library("diffprivlib", "diffprivlib")
    from dpfuzz.adapters.diffprivlib import diffprivlib_model

    return diffprivlib_model(model, epsilon=epsilon, relation=relation, **arguments)


# -- python-dp ----------------------------------------------------------------------------------
def pydp_release(
    algorithm: str = "BoundedSum",
    epsilon: float = 1.0,
    relation: str = "add_remove",
    **arguments: Any,
) -> LibraryTarget:
    """`pydp.algorithms.laplacian.<algorithm>` on records in [−1, 1] (Count: {0, 1}), up to 5
    records; `arguments` go to the algorithm (e.g. ``percentile=0.5`` for Percentile)."""
    from dpfuzz.adapters.pydp import pydp_algorithm

    laplacian = _library("pydp.algorithms.laplacian", "pydp")
    if algorithm == "Count":
        return pydp_algorithm(
            laplacian.Count,
            epsilon=epsilon,
            bounds=(0, 1),
            dtype="int",
            relation=relation,
            max_size=5,
        )
    choices = (
        "BoundedSum",
        "BoundedMean",
        "BoundedVariance",
        "BoundedStandardDeviation",
        "Max",
        "Min",
        "Median",
        "Percentile",
    )
    if algorithm not in choices:
        raise InvalidArgument(
            f"algorithm must be Count or one of {list(choices)}, got"
            f" {algorithm!r}.{did_you_mean(algorithm, choices)}"
        )
    return pydp_algorithm(
        getattr(laplacian, algorithm),
        epsilon=epsilon,
        bounds=(-1.0, 1.0),
        relation=relation,
        max_size=5,
        **arguments,
    )


def pydp_laplace(epsilon: float = 1.0, query_sensitivity: float | None = None) -> LibraryTarget:
    """`pydp`'s `LaplaceMechanism` told sensitivity 1; `query_sensitivity = 2` is the misuse of
    a query that moves by 2 (a sum of records in [−1, 1] under substitution)."""
    from dpfuzz.adapters.pydp import pydp_mechanism

    mechanisms = _library("pydp.algorithms.numerical_mechanisms", "pydp")
    return pydp_mechanism(mechanisms.LaplaceMechanism(epsilon, 1.0), sensitivity=query_sensitivity)


def pydp_gaussian(
    epsilon: float = 1.0, delta: float = 1e-3, query_sensitivity: float | None = None
) -> LibraryTarget:
    """`pydp`'s `GaussianMechanism` told ℓ2 sensitivity 1; `query_sensitivity = 2` is the misuse
    of a query that moves by 2."""
    from dpfuzz.adapters.pydp import pydp_mechanism

    mechanisms = _library("pydp.algorithms.numerical_mechanisms", "pydp")
    gaussian = mechanisms.GaussianMechanism(epsilon, delta, 1.0)
    return pydp_mechanism(gaussian, sensitivity=query_sensitivity)


def pydp_quantile_tree(quantiles: list | tuple = (0.5,), **options: Any) -> LibraryTarget:
    """python-dp's `QuantileTree` releasing `quantiles` (`dpfuzz.adapters.pydp`)."""
    _library("pydp.algorithms.quantile_tree", "pydp")
    from dpfuzz.adapters.pydp import pydp_quantile_tree as tree

    return tree(tuple(quantiles), **options)


def pydp_partition_selection(
    strategy: str = "truncated_geometric", **options: Any
) -> LibraryTarget:
    """python-dp's partition selection by `strategy` (`dpfuzz.adapters.pydp`)."""
    _library("pydp.algorithms.partition_selection", "pydp")
    from dpfuzz.adapters.pydp import pydp_partition_selection as selection

    return selection(strategy, **options)


# -- PipelineDP ---------------------------------------------------------------------------------
def pipelinedp_aggregate(metrics: list | tuple = ("COUNT",), **options: Any) -> LibraryTarget:
    """`DPEngine.aggregate` of `metrics` on the local backend (`dpfuzz.adapters.pipelinedp`)."""
    _library("pipeline_dp", "pipelinedp")
    from dpfuzz.adapters.pipelinedp import pipelinedp_aggregate as aggregate

    return aggregate(tuple(metrics), **options)


def pipelinedp_select_partitions(
    strategy: str = "truncated_geometric", **options: Any
) -> LibraryTarget:
    """`DPEngine.select_partitions` by `strategy` (`dpfuzz.adapters.pipelinedp`)."""
    _library("pipeline_dp", "pipelinedp")
    from dpfuzz.adapters.pipelinedp import pipelinedp_select_partitions as select

    return select(strategy, **options)


# -- Opacus -------------------------------------------------------------------------------------
def opacus_step(
    noise_multiplier: float = 1.0,
    optimizer_noise_multiplier: float | None = None,
    clipping: str = "flat",
    sample_rate: float = 1.0,
    steps: int = 1,
    clipping_options: dict[str, float] | None = None,
    flat_logits: bool = False,
) -> LibraryTarget:
    """DP-SGD in Opacus: logistic regression (zero initial weights) on up to 4 records in
    [−1, 1]^2 labelled 1, C = 0.1 (per-layer: 0.1/√2 for the weights and for the bias), releasing
    the parameters after `steps` steps (default one full-batch step); the claim from Opacus' PRV
    accountant at δ = 10⁻⁵. `optimizer_noise_multiplier = noise_multiplier / 2` is the misuse;
    `clipping`, `sample_rate` and `clipping_options` as `opacus_dpsgd` takes them. The logits and
    labels have shape (B, 1), or (B,) with `flat_logits` (the model ends in `Flatten(0)`)."""
    from dpfuzz.adapters.opacus import labelled_one, labelled_one_flat, opacus_dpsgd
    from dpfuzz.domain import Domain

    torch = _library("torch", "opacus")
    _library("opacus", "opacus")
    model = torch.nn.Linear(2, 1)
    for parameter in model.parameters():
        torch.nn.init.zeros_(parameter)
    if flat_logits:
        model = torch.nn.Sequential(model, torch.nn.Flatten(0))
    return opacus_dpsgd(
        model,
        to_batch=labelled_one_flat if flat_logits else labelled_one,
        noise_multiplier=noise_multiplier,
        max_grad_norm=[0.1 / 2**0.5] * 2 if clipping == "per_layer" else 0.1,
        # AdaClipDPOptimizer raises on an empty batch, so its datasets hold a record or more
        domain=Domain(low=-1.0, high=1.0, dim=2, min_size=int(clipping == "adaptive"), max_size=4),
        clipping=clipping,
        clipping_options=clipping_options,
        sample_rate=sample_rate,
        steps=steps,
        optimizer_noise_multiplier=optimizer_noise_multiplier,
    )


# -- SmartNoise SQL (its own environment: it pins opendp 0.14) ----------------------------------
def smartnoise_query(query: str = "SELECT COUNT(*) AS n FROM T.T", **options: Any) -> LibraryTarget:
    """`PrivateReader.execute(query)` over pandas (`dpfuzz.adapters.smartnoise`)."""
    _library("snsql", "smartnoise", own_environment=True)
    from dpfuzz.adapters.smartnoise import smartnoise_query as private_query

    return private_query(query, **options)


# -- SmartNoise Synth (beside SmartNoise SQL, whose version it pins) ---------------------------
def smartnoise_synthesizer(synthesizer: str = "mst", **options: Any) -> LibraryTarget:
    """A SmartNoise synthesizer fitted and sampled (`dpfuzz.adapters.smartnoise_synth`)."""
    _library("snsynth", "synth", own_environment=True)
    from dpfuzz.adapters.smartnoise_synth import smartnoise_synthesizer as synthesize

    return synthesize(synthesizer, **options)


def smartnoise_covariance(**options: Any) -> LibraryTarget:
    """SmartNoise Synth's `DPcovariance` on points of the plane
    (`dpfuzz.adapters.smartnoise_synth`)."""
    _library("snsynth", "synth", own_environment=True)
    from dpfuzz.adapters.smartnoise_synth import smartnoise_covariance as covariance

    return covariance(**options)


# -- jax-privacy (its own environment: it needs jax 0.10) ---------------------------------------
def jaxprivacy_dpsgd_step(noise_multiplier: float = 1.0, **options: Any) -> LibraryTarget:
    """DP-SGD steps in jax-privacy, full-batch or Poisson-sampled (`dpfuzz.adapters.jaxprivacy`)."""
    _library("jax_privacy", "jaxprivacy", own_environment=True)
    from dpfuzz.adapters.jaxprivacy import jaxprivacy_dpsgd_step as step

    return step(noise_multiplier, **options)


# -- TF Privacy (its own environment: TensorFlow 2.15 needs numpy < 2) ------------------------
def tfprivacy_dpsgd(noise_multiplier: float = 1.0, **options: Any) -> LibraryTarget:
    """DP-SGD steps with TF Privacy's Keras DP optimizers (`dpfuzz.adapters.tfprivacy`)."""
    _library("tensorflow_privacy", "tfprivacy", own_environment=True)
    from dpfuzz.adapters.tfprivacy import tfprivacy_dpsgd as steps

    return steps(noise_multiplier, **options)


# -- Tumult Analytics (its own environment: it pins numpy 1.26, pandas 1.5, PySpark 3.5) --------
def tumult_query(statistic: str = "count", **options: Any) -> LibraryTarget:
    """A Tumult Analytics query on a local Spark session (`dpfuzz.adapters.tumult`)."""
    _library("tmlt.analytics", "tumult", own_environment=True)
    from dpfuzz.adapters.tumult import tumult_query as query

    return query(statistic, **options)
