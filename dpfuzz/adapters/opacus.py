"""Opacus DP-SGD as audit targets (``pip install "dpfuzz[opacus]"``: opacus 1.6 on torch 2.13's
CPU build).

Opacus states its claim through an accountant (``"prv"``, its `PrivacyEngine`'s default,
``"rdp"`` or ``"gdp"``), told the noise multiplier, the sample rate and the number of steps;
`opacus_dpsgd` asks that accountant for ε at `delta`. Its convention is one example added or
removed (the accountants analyse Poisson sampling under add/remove); ``relation="substitute"``
reads the claim for a group of 2. The mechanism is Opacus' own: `GradSampleModule` for per-example
gradients, `DPOptimizer` for clipping, noise and the 1/B scaling (B public: `batch_size`, by
default the largest dataset), then the wrapped SGD step, all from the model's fixed initial
parameters. It releases the parameters after `steps` steps (``release="parameters"``) or every
step's noisy gradient (``"gradients"``, white-box).

`clipping` picks Opacus' mode as `PrivacyEngine.make_private` builds it (`get_optimizer_class`,
`prepare_module`): ``"flat"`` (`DPOptimizer`), ``"per_layer"`` (`DPPerLayerOptimizer`, one
`max_grad_norm` per parameter, noise σ·‖C‖₂), ``"ghost"`` (ghost clipping: per-example norms
without per-example gradients, `GradSampleModuleFastGradientClipping`,
`DPOptimizerFastGradientClipping` and `DPLossFastGradientClipping`'s two backward passes) or
``"adaptive"`` (`AdaClipDPOptimizer`, Andrew et al. 2021: the bound follows a noisy count of
unclipped examples; its keyword arguments in `clipping_options`). Below sample rate 1, each step's
batch comes from Opacus' `UniformWithReplacementSampler` (Poisson sampling, as its `DPDataLoader`).

Two misuses Opacus' API lets a user make are parameters: ``optimizer_noise_multiplier`` (the
optimizer adds other noise than the accountant was told) and ``noiseless_last_step``. The clipping
and batch-size bugs of the numpy catalogue (`dpfuzz.catalogue.dpsgd`) cannot be written through
`DPOptimizer`, which clips the per-example gradients it computed and scales noise and sum alike.

Sampling: one training run per draw, its noise and its batches seeded through `torch.Generator`s
drawn from the audit's generator, so audits are reproducible. Fast path (one full-batch step of
plain SGD, the usual audit of a step): the optimizer clips and sums once per dataset, and Opacus'
own noise function (`opacus.optimizers.optimizer._generate_noise`, pinned with the extra) draws a
whole batch of noise at once.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpfuzz.adapters import LibraryTarget, claim_under
from dpfuzz.claims import ApproxDP, GaussianDP
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import per_call
from dpfuzz.validation import check_choice

if TYPE_CHECKING:
    from dpfuzz.one_run import OneRunRelease


def opacus_claim(
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    accountant: str = "prv",
    delta: float = 1e-5,
) -> ApproxDP:
    """(ε, δ) from an Opacus accountant stepped `steps` times at (noise_multiplier, sample_rate)."""
    from opacus.accountants import create_accountant

    check_choice("accountant", accountant, ("prv", "rdp", "gdp"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the GDP accountant warns that it is experimental
        book = create_accountant(accountant)
        for _ in range(steps):
            book.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate)
        return ApproxDP(float(book.get_epsilon(delta)), delta)


CLIPPING = ("flat", "per_layer", "ghost", "adaptive")


def labelled_one(dataset: np.ndarray) -> tuple[Any, Any]:
    """Records as feature rows, every label 1 (the default `to_batch`)."""
    import torch

    features = torch.as_tensor(np.asarray(dataset, dtype=np.float32))
    return features, torch.ones((len(features), 1))


def labelled_one_flat(dataset: np.ndarray) -> tuple[Any, Any]:
    """`labelled_one` with labels of shape (n,), for a model whose logits have that shape."""
    features, labels = labelled_one(dataset)
    return features, labels[:, 0]


def opacus_dpsgd(
    model: Any,
    *,
    noise_multiplier: float,
    max_grad_norm: float | Sequence[float],
    domain: Domain,
    clipping: str = "flat",
    clipping_options: Mapping[str, float] | None = None,
    learning_rate: float = 1.0,
    steps: int = 1,
    sample_rate: float = 1.0,
    batch_size: float | None = None,
    loss: Any = None,
    to_batch: Callable[[np.ndarray], tuple[Any, Any]] = labelled_one,
    accountant: str = "prv",
    delta: float = 1e-5,
    release: str = "parameters",
    optimizer_noise_multiplier: float | None = None,
    noiseless_last_step: bool = False,
) -> LibraryTarget:
    """An audit target for DP-SGD on the torch `model` (module docstring). `domain` gives the
    records (``to_batch(dataset) -> (inputs, targets)`` turns a dataset into tensors; default:
    feature rows labelled 1, `loss` default ``BCEWithLogitsLoss``); its relation must be
    add/remove (Opacus' own) or substitute."""
    import torch

    check_choice("release", release, ("parameters", "gradients"))
    check_choice("clipping", clipping, CLIPPING)
    _check_records(domain, to_batch, sample_rate)
    _check_clipping(model, clipping, max_grad_norm, clipping_options)
    relation = domain.relation.name
    claim, how = claim_under(
        opacus_claim(noise_multiplier, sample_rate, steps, accountant, delta),
        "add_remove",
        relation,
    )
    run = _Training(
        initial=copy.deepcopy(model),
        noise_multiplier=(
            noise_multiplier if optimizer_noise_multiplier is None else optimizer_noise_multiplier
        ),
        max_grad_norm=(
            max_grad_norm if isinstance(max_grad_norm, float | int) else tuple(max_grad_norm)
        ),
        clipping=clipping,
        clipping_options=dict(clipping_options or {}),
        expected_batch=float(
            batch_size if batch_size is not None else domain.max_size * sample_rate
        ),
        learning_rate=learning_rate,
        loss=loss if loss is not None else torch.nn.BCEWithLogitsLoss(),
        to_batch=to_batch,
        steps=steps,
        sample_rate=sample_rate,
        release=release,
        noiseless_last_step=noiseless_last_step,
    )
    fast = steps == 1 and sample_rate == 1.0 and clipping != "adaptive"
    mechanism = per_call(run.train, batch=run.one_step_batch if fast else None)
    mode = "" if clipping == "flat" else f", {clipping} clipping"
    mechanism.name = f"opacus DP-SGD ({steps} step(s), σ = {run.noise_multiplier:g}{mode})"
    stated = (
        f"accountant {accountant!r} told σ = {noise_multiplier:g}, q = {sample_rate:g}, {steps}"
        " step(s)"
    )
    if run.noise_multiplier != noise_multiplier:
        stated += f"; the optimizer adds σ = {run.noise_multiplier:g}: a misuse to test"
    return LibraryTarget(mechanism, claim, domain, f"one example added or removed; {how}; {stated}")


def _check_records(domain: Domain, to_batch: Callable, sample_rate: float) -> None:
    """Opacus' privacy unit is one example: add/remove or substitute records the batch can take."""
    relation = domain.relation.name
    if relation not in ("add_remove", "substitute"):
        raise InvalidArgument(
            "Opacus' privacy unit is one example: audit it under add_remove or substitute, got"
            f" {relation!r}."
        )
    if to_batch in (labelled_one, labelled_one_flat) and domain.dim is None:
        raise InvalidArgument(
            "the default to_batch feeds each record to the model as a feature row: give the domain "
            "vector records, Domain(dim=<the model's input size>, ...), or pass to_batch=."
        )
    if not 0.0 < sample_rate <= 1.0:
        raise InvalidArgument(f"sample_rate must be in (0, 1], got {sample_rate!r}.")


def _check_clipping(
    model: Any,
    clipping: str,
    max_grad_norm: float | Sequence[float],
    options: Mapping[str, float] | None,
) -> None:
    """Per-layer clipping takes one bound per parameter, the other modes one bound; only adaptive
    clipping takes options (`AdaClipDPOptimizer`'s)."""
    parameters = sum(1 for parameter in model.parameters() if parameter.requires_grad)
    if clipping == "per_layer":
        if isinstance(max_grad_norm, float | int) or len(max_grad_norm) != parameters:
            raise InvalidArgument(
                f"per-layer clipping takes one max_grad_norm per parameter: give a list of"
                f" {parameters}, got {max_grad_norm!r}."
            )
    elif not isinstance(max_grad_norm, float | int):
        raise InvalidArgument(
            f"{clipping} clipping takes one max_grad_norm, got {max_grad_norm!r}: a list is for"
            ' clipping="per_layer".'
        )
    if options and clipping != "adaptive":
        raise InvalidArgument(
            f"clipping_options are AdaClipDPOptimizer's (clipping='adaptive'), got {options!r} with"
            f" clipping={clipping!r}."
        )


@dataclass(frozen=True)
class _Training:
    """One DP-SGD run from the model's fixed initial parameters, as `opacus_dpsgd` releases it."""

    initial: Any
    noise_multiplier: float  # the noise the optimizer adds
    max_grad_norm: float | tuple[float, ...]
    clipping: str
    clipping_options: dict[str, float]
    expected_batch: float
    learning_rate: float
    loss: Any
    to_batch: Callable[[np.ndarray], tuple[Any, Any]]
    steps: int
    sample_rate: float
    release: str
    noiseless_last_step: bool

    def private(self, generator) -> tuple[Any, Any, Any]:
        """The optimizer, module and loss of one run (`_private`), its noise from `generator`."""
        return _private(
            self.initial,
            self.noise_multiplier,
            self.max_grad_norm,
            self.expected_batch,
            self.learning_rate,
            generator,
            self.clipping,
            self.clipping_options,
            self.loss,
        )

    def train(self, dataset: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One training run: `steps` steps, each on a batch from Opacus' Poisson sampler below
        sample rate 1."""
        import torch
        from opacus.utils.uniform_sampler import UniformWithReplacementSampler

        optimizer, module, loss = self.private(
            torch.Generator().manual_seed(int(rng.integers(2**62)))
        )
        batches = torch.Generator().manual_seed(int(rng.integers(2**62)))
        inputs, targets = self.to_batch(dataset)
        sampler = (
            iter(
                UniformWithReplacementSampler(
                    num_samples=len(inputs),
                    sample_rate=self.sample_rate,
                    generator=batches,
                    steps=self.steps,
                )
            )
            if self.sample_rate < 1.0 and len(inputs)
            else None
        )
        released = []
        for step in range(self.steps):
            if self.noiseless_last_step and step == self.steps - 1:
                optimizer.noise_multiplier = 0.0
            chosen = torch.as_tensor(next(sampler), dtype=torch.long) if sampler else slice(None)
            optimizer.zero_grad()
            _backward(module, loss, inputs[chosen], targets[chosen])
            optimizer.step()
            released.append(_flat([parameter.grad for parameter in module.parameters()]))
        if self.release == "gradients":
            return np.concatenate(released)
        return _flat(list(module.parameters()))

    def one_step_batch(
        self, dataset: np.ndarray, size: int, rng: np.random.Generator
    ) -> np.ndarray:
        """`size` runs of one full-batch step at once: clipped and summed once, Opacus' own noise
        drawn for the whole batch."""
        import torch
        from opacus.optimizers import DPOptimizerFastGradientClipping
        from opacus.optimizers.optimizer import _generate_noise

        optimizer, module, loss = self.private(None)
        inputs, targets = self.to_batch(dataset)
        optimizer.zero_grad()
        _backward(module, loss, inputs, targets)
        # Opacus' per-example clipping, summed into p.summed_grad (ghost clipping clipped in its
        # second backward pass)
        if isinstance(optimizer, DPOptimizerFastGradientClipping):
            optimizer.accumulate()
        else:
            optimizer.clip_and_accumulate()
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        noise_std = (
            0.0
            if self.noiseless_last_step
            else optimizer.noise_multiplier * optimizer.max_grad_norm
        )
        columns = []
        with torch.no_grad():
            for parameter in module.parameters():
                noise = _generate_noise(
                    std=noise_std,
                    reference=torch.empty((size, *parameter.shape)),
                    generator=generator,
                )
                # add_noise, scale_grad
                gradient = (parameter.summed_grad + noise) / optimizer.expected_batch_size
                released = (
                    gradient
                    if self.release == "gradients"
                    else parameter - self.learning_rate * gradient
                )
                columns.append(released.reshape(size, -1))
        return torch.cat(columns, dim=1).numpy().astype(float)


def opacus_one_run(
    noise_multiplier: float,
    steps: int,
    *,
    max_grad_norm: float = 0.1,
    learning_rate: float = 0.5,
    accountant: str = "prv",
    delta: float = 1e-5,
    optimizer_noise_multiplier: float | None = None,
    as_gdp: bool = False,
) -> OneRunRelease:
    """``run(included, rng) -> scores`` for `dpfuzz.audit_one_run`: white-box full-batch DP-SGD in
    Opacus on scikit-learn's breast-cancer data with one Dirac canary per extra input coordinate
    (paper 003 §5.2; the numpy twin is `dpfuzz.catalogue.dpsgd.dpsgd_one_run`). Canary i is the
    input 10·e_{30+i} labelled 0, whose gradient (≈ 5) Opacus clips to C on its own coordinate; its
    score is that coordinate of the released noisy gradients, summed over the steps. ``run.claim``
    is the accountant's (ε, δ) for (σ, q = 1, steps), or with `as_gdp` the μ-GDP with that ε at δ
    (full-batch steps are exactly √T/σ-GDP): one run refutes a GDP claim by its error rate."""
    import torch

    from dpfuzz.catalogue.dpsgd import breast_cancer

    features, labels = breast_cancer()
    used_noise = (
        noise_multiplier if optimizer_noise_multiplier is None else optimizer_noise_multiplier
    )

    def run(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        m, (n, d) = len(included), features.shape
        canaries = np.zeros((int(included.sum()), d + m))
        canaries[np.arange(len(canaries)), d + np.flatnonzero(included)] = 10.0
        inputs = torch.as_tensor(
            np.vstack([np.hstack([features, np.zeros((n, m))]), canaries]), dtype=torch.float32
        )
        targets = torch.as_tensor(
            np.concatenate([labels, np.zeros(len(canaries))]), dtype=torch.float32
        )[:, None]
        model = torch.nn.Linear(d + m, 1, bias=False)
        torch.nn.init.zeros_(model.weight)
        optimizer, module, loss = _private(
            model,
            used_noise,
            max_grad_norm,
            n + m,
            learning_rate,
            torch.Generator().manual_seed(int(rng.integers(2**62))),
        )
        (weight,) = module.parameters()
        scores = np.zeros(m)
        for _ in range(steps):
            optimizer.zero_grad()
            _backward(module, loss, inputs, targets)
            optimizer.step()
            scores += weight.grad[0, d:].detach().numpy()
        return scores

    stated = opacus_claim(noise_multiplier, 1.0, steps, accountant, delta)
    claim = GaussianDP.from_epsilon(stated.epsilon, delta) if as_gdp else stated
    run.claim = claim  # type: ignore[attr-defined]
    return run


def _private(
    model,
    noise_multiplier: float,
    max_grad_norm: float | tuple[float, ...],
    expected_batch: float,
    learning_rate: float,
    generator,
    clipping: str = "flat",
    clipping_options: Mapping[str, float] | None = None,
    loss: Any = None,
) -> tuple[Any, Any, Any]:
    """A fresh copy of `model` made private by hand, as `PrivacyEngine.make_private` does for
    `clipping` (its module, optimizer class and, for ghost clipping, loss) but with a public
    expected batch size (Opacus' own is len(dataset) × q, which add/remove would reveal). Returns
    the optimizer, the module and the loss to call (default ``BCEWithLogitsLoss``)."""
    import torch
    from opacus.grad_sample.utils import prepare_module
    from opacus.optimizers import get_optimizer_class
    from opacus.utils.fast_gradient_clipping_utils import DPLossFastGradientClipping

    ghost = clipping == "ghost"
    mode = "ghost" if ghost else "hooks"
    norm = list(max_grad_norm) if isinstance(max_grad_norm, tuple) else max_grad_norm
    module = prepare_module(
        copy.deepcopy(model), grad_sample_mode=mode, **({"max_grad_norm": norm} if ghost else {})
    )
    optimizer = get_optimizer_class("flat" if ghost else clipping, False, mode)(
        torch.optim.SGD(module.parameters(), lr=learning_rate),
        noise_multiplier=noise_multiplier,
        max_grad_norm=norm,
        expected_batch_size=expected_batch,
        generator=generator,
        **(clipping_options or {}),
    )
    loss = loss if loss is not None else torch.nn.BCEWithLogitsLoss()
    if ghost:
        loss = DPLossFastGradientClipping(module, optimizer, copy.deepcopy(loss), "mean")
    return optimizer, module, loss


def _backward(module, loss, inputs, targets) -> None:
    """Per-example gradients of `loss`, without torch's warning that Opacus' hooks fire on inputs
    that need no gradient (records are data, not parameters)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Full backward hook is firing")
        loss(module(inputs), targets).backward()


def _flat(tensors) -> np.ndarray:
    return np.concatenate([tensor.detach().reshape(-1).numpy().astype(float) for tensor in tensors])
