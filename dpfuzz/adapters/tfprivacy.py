"""TensorFlow Privacy's DP optimizers as audit targets (``pip install "dpfuzz[tfprivacy]"``,
tensorflow-privacy 0.9.0 on TensorFlow 2.15, which needs numpy < 2: its own environment,
docs/guide/libraries.md).

DP-SGD steps with TF Privacy's Keras optimizers (`DPKerasSGDOptimizer`, `DPKerasAdamOptimizer`,
`DPKerasAdagradOptimizer`, or their `Vectorized` forms) on a logistic model without bias, from
weights 0 at learning rate 1. Each record is one example in [−1, 1]^2 labelled 1; the batch
holds `max_size` examples, the absent ones zero features, whose gradient is zero (so the batch
size B is public, as TF Privacy's accounting assumes). The optimizer groups the batch into
B / `microbatch_size` microbatches, clips each microbatch's mean gradient to `l2_norm_clip`,
adds Gaussian noise of standard deviation noise multiplier × clip and divides by the number of
microbatches. The release is the weights after every step (TF Privacy's guarantee covers every
checkpoint).

The claim is TF Privacy's own statement, `compute_dp_sgd_privacy_statement` for B examples, B per
batch, `steps` epochs: its "epsilon with each example occurring once per epoch" at `delta`, under
add-or-remove-one-example adjacency. Its ``used_microbatching`` (default: microbatches of more
than one example) halves the noise multiplier in the accounting, since a microbatch's clipped
mean moves by up to 2 × clip. Two misuses are parameters: ``optimizer_noise_multiplier`` (the
optimizer adds other noise than the statement was told) and ``used_microbatching=False`` with
microbatches of two or more.

Sampling: steps run in a compiled TensorFlow loop, at most 1,024 draws per call. The optimizer's
noise comes from TensorFlow's own generator, not the audit's: audits are valid but not
bit-reproducible.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpfuzz.adapters import LibraryTarget, stated_claim
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import per_call
from dpfuzz.validation import check_choice, check_int

OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "adagrad": "Adagrad"}  # TF Privacy's class names
CHUNK = 1024  # most draws per compiled call


def tfprivacy_dpsgd(
    noise_multiplier: float = 1.0,
    *,
    l2_norm_clip: float = 0.1,
    optimizer: str = "sgd",
    vectorized: bool = False,
    microbatch_size: int = 1,
    steps: int = 1,
    delta: float = 1e-5,
    accountant: str = "rdp",
    max_size: int = 4,
    used_microbatching: bool | None = None,
    optimizer_noise_multiplier: float | None = None,
) -> LibraryTarget:
    """`steps` DP-SGD steps with TF Privacy's `optimizer` on a batch of `max_size` examples."""
    check_choice("optimizer", optimizer, tuple(OPTIMIZERS))
    check_choice("accountant", accountant, ("rdp", "pld"))
    check_int("steps", steps, minimum=1)
    check_int("max_size", max_size, minimum=1)
    check_int("microbatch_size", microbatch_size, minimum=1)
    if max_size % microbatch_size:
        raise InvalidArgument(
            f"microbatch_size {microbatch_size} must divide the batch, max_size = {max_size}:"
            " TF Privacy reshapes the batch into equal microbatches."
        )
    if used_microbatching is None:
        used_microbatching = microbatch_size > 1
    epsilon = tfprivacy_epsilon(
        noise_multiplier, max_size, steps, delta, used_microbatching, accountant
    )
    training = _Training(
        optimizer,
        vectorized,
        l2_norm_clip,
        optimizer_noise_multiplier or noise_multiplier,
        max_size // microbatch_size,
        steps,
        max_size,
    )
    release = per_call(
        lambda dataset, rng: training.batch(dataset, 1, rng)[0], batch=training.batch
    )
    added = (
        f", the optimizer's {optimizer_noise_multiplier:g}"
        if optimizer_noise_multiplier not in (None, noise_multiplier)
        else ""
    )
    release.name = (
        f"TF Privacy {optimizer_name(optimizer, vectorized)}, {steps} step(s), microbatches of"
        f" {microbatch_size} (noise multiplier {noise_multiplier:g}{added},"
        f" clip {l2_norm_clip:g})"
    )
    domain = Domain(low=-1.0, high=1.0, dim=2, min_size=0, max_size=max_size)
    convention = (
        "one example added or removed (TF Privacy's add-or-remove-one adjacency); claim from"
        f" compute_dp_sgd_privacy_statement({max_size} examples, batch {max_size}, {steps}"
        f" epoch(s), noise multiplier {noise_multiplier:g}, used_microbatching="
        f"{used_microbatching}, {accountant.upper()}) at delta = {delta:g}"
    )
    return LibraryTarget(release, stated_claim(epsilon, delta), domain, convention)


def optimizer_name(optimizer: str, vectorized: bool) -> str:
    """TF Privacy's class for `optimizer`: ``DPKerasSGDOptimizer``, ``VectorizedDPKerasAdam…``."""
    return f"{'Vectorized' if vectorized else ''}DPKeras{OPTIMIZERS[optimizer]}Optimizer"


def tfprivacy_epsilon(
    noise_multiplier: float,
    batch: int,
    steps: int,
    delta: float,
    used_microbatching: bool,
    accountant: str = "rdp",
) -> float:
    """ε read from TF Privacy's `compute_dp_sgd_privacy_statement`: full batches of `batch`
    examples for `steps` epochs, each example once per epoch."""
    from tensorflow_privacy import compute_dp_sgd_privacy_statement
    from tensorflow_privacy.privacy.analysis.compute_dp_sgd_privacy_lib import AccountantType

    statement = compute_dp_sgd_privacy_statement(
        number_of_examples=batch,
        batch_size=batch,
        num_epochs=steps,
        noise_multiplier=noise_multiplier,
        delta=delta,
        used_microbatching=used_microbatching,
        accountant_type=AccountantType[accountant.upper()],
    )
    found = re.search(r"once per epoch:\s*([0-9.eE+-]+|inf)", statement)
    if found is None:
        raise InvalidArgument(f"TF Privacy's statement gave no epsilon:\n{statement}")
    return float(found.group(1))


@dataclass
class _Training:
    """A model, a TF Privacy optimizer and a compiled loop of `steps`-step runs from weights 0."""

    optimizer: str
    vectorized: bool
    l2_norm_clip: float
    noise_multiplier: float
    num_microbatches: int
    steps: int
    batch_size: int
    _compiled: Any = field(default=None, init=False, repr=False)

    def batch(self, dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """`size` releases: every step's weights, one row per run."""
        import tensorflow as tf

        examples = np.zeros((self.batch_size, 2), dtype=np.float32)
        records = np.asarray(dataset, dtype=np.float32).reshape(-1, 2)
        examples[: len(records)] = records
        run = self._compiled or self._compile()
        counts = [CHUNK] * (size // CHUNK) + ([size % CHUNK] if size % CHUNK else [])
        chunks = [run(tf.constant(examples), tf.constant(count)).numpy() for count in counts]
        return np.concatenate(chunks).astype(float)

    def _compile(self):
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        import tensorflow_privacy as tfp

        tf.get_logger().setLevel("ERROR")
        optimizer = getattr(tfp, optimizer_name(self.optimizer, self.vectorized))(
            l2_norm_clip=self.l2_norm_clip,
            noise_multiplier=self.noise_multiplier,
            num_microbatches=self.num_microbatches,
            learning_rate=1.0,
        )
        model = tf.keras.Sequential(
            [tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros", input_shape=(2,))]
        )
        weights = model.trainable_variables
        loss = tf.keras.losses.BinaryCrossentropy(
            from_logits=True, reduction=tf.keras.losses.Reduction.NONE
        )
        labels = tf.ones((self.batch_size, 1))

        def step(examples):
            optimizer.minimize(lambda: loss(labels, model(examples)), weights)

        step(tf.zeros((self.batch_size, 2)))  # creates the optimizer's slots before tracing
        state = [*optimizer.variables(), *weights]

        @tf.function
        def runs(examples, count):
            outputs = tf.TensorArray(tf.float32, size=count)
            for index in tf.range(count):
                for variable in state:  # a fresh run: weights 0, no momentum, iteration 0
                    variable.assign(tf.zeros_like(variable))
                checkpoints = []
                for _ in range(self.steps):
                    step(examples)
                    checkpoints.append(tf.reshape(weights[0], [-1]))
                outputs = outputs.write(index, tf.concat(checkpoints, 0))
            return outputs.stack()

        self._compiled = runs
        return runs
