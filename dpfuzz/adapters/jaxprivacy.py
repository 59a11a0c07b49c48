"""jax-privacy DP-SGD steps as audit targets (``pip install "dpfuzz[jaxprivacy]"``, jax-privacy
2.0.0, which needs jax 0.10: install it beside SmartNoise SQL, not beside the `vizier` extra's
jax 0.4, docs/guide/libraries.md).

DP-SGD steps at learning rate 0 (every step's gradient at the public start w = 0, a DP-SGD
run the accountant covers): `jax_privacy.clipped_grad` clips each example's gradient of a
logistic loss to `l2_clip_norm` (its documented L2 sensitivity under add/remove), each step
sums the examples in its batch, Poisson-sampled at `sampling_rate` (every example when 1), and
`noise_addition.gaussian_privatizer` adds Gaussian noise of standard deviation noise multiplier
× sensitivity. The release is every step's noisy gradient sum. The claim is what jax-privacy's
`DpsgdTrainingAccountant` states for `steps` updates at that sampling rate, at `delta`. Each
record is one example in [−1, 1]^2 labelled 1; the convention is one example added or removed.

Sampling: the clipped gradients are computed once per dataset; the batches' Poisson masks (the
adapter's, as the accountant assumes them) and the privatizer run under `jax.vmap` over fresh
keys, 256 or 8,192 draws per compiled call (≈ 10^5–10^6 draws per second).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from dpfuzz.adapters import LibraryTarget, stated_claim
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import per_call
from dpfuzz.validation import check_choice, check_int

CHUNKS = (256, 8192)  # draws per compiled call: small requests (the probe's) stay cheap


def jaxprivacy_dpsgd_step(
    noise_multiplier: float = 1.0,
    *,
    l2_clip_norm: float = 0.1,
    delta: float = 1e-5,
    accountant: str = "pld",
    max_size: int = 4,
    steps: int = 1,
    sampling_rate: float = 1.0,
    sample: bool = True,
    privatizer_noise_multiplier: float | None = None,
) -> LibraryTarget:
    """`steps` DP-SGD steps in jax-privacy, batches Poisson-sampled at `sampling_rate`. Two misuses
    are parameters: `privatizer_noise_multiplier` (default: `noise_multiplier`) is the noise the
    privatizer adds, so ``noise_multiplier / 2`` is an accountant told more noise than is added;
    ``sample=False`` puts every example in every batch while the accountant is told
    `sampling_rate`. `accountant`: "pld" or "rdp"."""
    check_choice("accountant", accountant, ("pld", "rdp"))
    check_int("steps", steps, minimum=1)
    if not 0 < sampling_rate <= 1:
        raise InvalidArgument(f"sampling_rate must be in (0, 1], got {sampling_rate!r}.")
    epsilon = _accounted_epsilon(noise_multiplier, sampling_rate, steps, delta, accountant)
    batch, sensitivity = _noisy_sums(
        l2_clip_norm,
        privatizer_noise_multiplier or noise_multiplier,
        sampling_rate if sample else 1.0,
        steps,
        max_size,
    )
    mechanism = per_call(lambda dataset, rng: batch(dataset, 1, rng)[0], batch=batch)
    mechanism.name = (
        f"jax-privacy DP-SGD, {steps} step(s) at sampling rate"
        f" {sampling_rate:g}{'' if sample else ' (not sampled)'} (noise multiplier"
        f" {noise_multiplier:g}, C = {l2_clip_norm:g})"
    )
    domain = Domain(low=-1.0, high=1.0, dim=2, min_size=0, max_size=max_size)
    convention = (
        f"one example added or removed (clipped_grad's sensitivity {sensitivity:g}); claim from its"
        f" {accountant} DpsgdTrainingAccountant for {steps} update(s) at sampling rate"
        f" {sampling_rate:g}, delta = {delta:g}"
    )
    return LibraryTarget(mechanism, stated_claim(epsilon, delta), domain, convention)


def _accounted_epsilon(
    noise_multiplier: float, sampling_rate: float, steps: int, delta: float, accountant: str
) -> float:
    """ε at `delta` from jax-privacy's `DpsgdTrainingAccountant` for `steps` updates."""
    from jax_privacy.accounting import accountants, analysis

    config = (
        accountants.PldAccountantConfig()
        if accountant == "pld"
        else accountants.RdpAccountantConfig()
    )
    population = 1000  # the accountant reads the sampling rate as batch_size / num_samples
    params = analysis.DpParams(
        noise_multipliers=noise_multiplier,
        num_samples=population,
        batch_size=round(sampling_rate * population),
        delta=delta,
    )
    return analysis.DpsgdTrainingAccountant(config).compute_epsilon(steps, params)


def _noisy_sums(
    l2_clip_norm: float, noise_multiplier: float, rate: float, steps: int, max_size: int
) -> tuple[Callable[[np.ndarray, int, np.random.Generator], np.ndarray], float]:
    """(batch(dataset, size, rng): `size` releases of `steps` noisy clipped-gradient sums, each
    example in a batch at `rate`; clipped_grad's sensitivity), compiled before it returns so the
    audit's probe times the release, not jax's compiler."""
    import jax
    import jax.numpy as jnp
    import jax_privacy
    from jax_privacy import noise_addition

    def loss(weights, examples):
        return jnp.mean(jnp.log1p(jnp.exp(-examples @ weights)))

    clipped_sum = jax_privacy.clipped_grad(loss, l2_clip_norm=l2_clip_norm, batch_argnums=1)
    sensitivity = clipped_sum.sensitivity()
    # each example's clipped gradient: the clipped sum over a batch of one
    per_example = jax.jit(jax.vmap(lambda example: clipped_sum(jnp.zeros(2), example[None])))
    stddev = noise_multiplier * sensitivity

    @partial(jax.jit, static_argnums=2)
    def noisy(gradients, seed, count):
        def one(key):
            sampling, noise = jax.random.split(key)
            batches = jax.random.bernoulli(sampling, rate, (steps, gradients.shape[0])).astype(
                gradients.dtype
            )
            sums = batches @ gradients
            privatizer = noise_addition.gaussian_privatizer(stddev=stddev, prng_key=noise)
            return privatizer.update(sums, privatizer.init(sums))[0].ravel()

        return jax.vmap(one)(jax.random.split(jax.random.key(seed), count))

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        examples = np.asarray(dataset, dtype=np.float32).reshape(-1, 2)
        # absent examples add zero: one compiled shape
        gradients = np.zeros((max_size, 2), dtype=np.float32)
        gradients[: len(examples)] = per_example(jnp.asarray(examples)) if len(examples) else 0.0
        count = CHUNKS[0] if size <= CHUNKS[0] else CHUNKS[1]
        chunks = [
            np.asarray(noisy(gradients, int(rng.integers(2**31 - 1)), count))
            for _ in range(-(-size // count))
        ]
        return np.concatenate(chunks)[:size].astype(float)

    for size in range(1, max_size + 1):
        per_example(jnp.zeros((size, 2), dtype=jnp.float32))
    for count in CHUNKS:
        noisy(jnp.zeros((max_size, 2), dtype=jnp.float32), 0, count)
    return batch, sensitivity
