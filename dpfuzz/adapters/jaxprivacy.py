"""jax-privacy DP-SGD steps as audit targets (``pip install "dpfuzz[jaxprivacy]"``, jax-privacy
2.0.0, which needs jax 0.10: install it beside SmartNoise SQL, not beside the `vizier` extra's
jax 0.4, docs/guide/libraries.md).

One full-batch DP-SGD step: `jax_privacy.clipped_grad` sums the per-example gradients of a
logistic loss, each clipped to `l2_clip_norm` (its documented L2 sensitivity under add/remove),
from the public start w = 0, and `noise_addition.gaussian_privatizer` adds Gaussian noise of
standard deviation noise multiplier × sensitivity. The release is the noisy gradient sum. The
claim is what jax-privacy's `DpsgdTrainingAccountant` states for one update with every example
in the batch (Poisson sampling at rate 1), at `delta`. Each record is one example in
[−1, 1]^2 labelled 1; the convention is one example added or removed.

Sampling: the clipped sum is computed once per dataset, and the privatizer runs under
`jax.vmap` over fresh keys, 256 or 8,192 draws per compiled call (≈ 10^5–10^6 draws per second).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dpfuzz.adapters import LibraryTarget, stated_claim
from dpfuzz.domain import Domain
from dpfuzz.mechanism import per_call
from dpfuzz.validation import check_choice

CHUNKS = (256, 8192)  # draws per compiled call: small requests (the probe's) stay cheap


def jaxprivacy_dpsgd_step(noise_multiplier: float = 1.0, *, l2_clip_norm: float = 0.1, delta: float = 1e-5,
                          accountant: str = "pld", max_size: int = 4,
                          privatizer_noise_multiplier: float | None = None) -> LibraryTarget:
    """One DP-SGD step in jax-privacy; `privatizer_noise_multiplier` (default: `noise_multiplier`)
    is the noise the privatizer adds, so ``noise_multiplier / 2`` is the misuse of an accountant
    told more noise than is added. `accountant`: "pld" or "rdp"."""
    import jax
    import jax.numpy as jnp
    import jax_privacy
    from jax_privacy import noise_addition
    from jax_privacy.accounting import accountants, analysis

    check_choice("accountant", accountant, ("pld", "rdp"))
    config = accountants.PldAccountantConfig() if accountant == "pld" else accountants.RdpAccountantConfig()
    params = analysis.DpParams(noise_multipliers=noise_multiplier, num_samples=max_size, batch_size=max_size, delta=delta)
    epsilon = analysis.DpsgdTrainingAccountant(config).compute_epsilon(1, params)

    def loss(weights, examples):
        return jnp.mean(jnp.log1p(jnp.exp(-examples @ weights)))

    clipped_sum = jax_privacy.clipped_grad(loss, l2_clip_norm=l2_clip_norm, batch_argnums=1)
    gradient_at_start = jax.jit(lambda examples: clipped_sum(jnp.zeros(2), examples))
    stddev = (privatizer_noise_multiplier or noise_multiplier) * clipped_sum.sensitivity()

    @partial(jax.jit, static_argnums=2)
    def noisy(gradient, seed, count):
        def one(key):
            privatizer = noise_addition.gaussian_privatizer(stddev=stddev, prng_key=key)
            return privatizer.update(gradient, privatizer.init(gradient))[0]

        return jax.vmap(one)(jax.random.split(jax.random.key(seed), count))

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        examples = np.asarray(dataset, dtype=np.float32).reshape(-1, 2)
        gradient = gradient_at_start(jnp.asarray(examples)) if len(examples) else jnp.zeros(2)
        count = CHUNKS[0] if size <= CHUNKS[0] else CHUNKS[1]
        chunks = [np.asarray(noisy(gradient, int(rng.integers(2**31 - 1)), count)) for _ in range(-(-size // count))]
        return np.concatenate(chunks)[:size].astype(float)

    for size in range(1, max_size + 1):  # compile before the audit's probe times the release
        gradient_at_start(jnp.zeros((size, 2), dtype=jnp.float32))
    for count in CHUNKS:
        noisy(jnp.zeros(2), 0, count)
    mechanism = per_call(lambda dataset, rng: batch(dataset, 1, rng)[0], batch=batch)
    mechanism.name = f"jax-privacy DP-SGD step (noise multiplier {noise_multiplier:g}, C = {l2_clip_norm:g})"
    domain = Domain(low=-1.0, high=1.0, dim=2, min_size=0, max_size=max_size)
    convention = (f"one example added or removed (clipped_grad's sensitivity {clipped_sum.sensitivity():g}); claim from "
                  f"its {accountant} DpsgdTrainingAccountant for one full-batch update at delta = {delta:g}")
    return LibraryTarget(mechanism, stated_claim(epsilon, delta), domain, convention)
