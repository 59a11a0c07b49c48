"""Opacus 1.6: ghost clipping does not clip per example when the loss keeps a trailing dimension.

Standalone reproduction (needs opacus, torch, numpy and scipy, not dpfuzz; about half a minute):

    python findings/opacus_ghost_clipping_shape.py [steps per side, default 2000]

With ``make_private(..., grad_sample_mode="ghost")``, the criterion becomes a
``DPLossFastGradientClipping``: it computes the per-example losses (reduction "none"), the
per-example gradient norms in a first backward pass, and the clipping coefficients
c_j = min(1, C/‖g_j‖); its second backward pass differentiates ``sum(coeff * loss_per_sample)``.
A binary classifier's usual loss, ``BCEWithLogitsLoss`` on logits and targets of shape (B, 1),
gives per-example losses of shape (B, 1); times the coefficients of shape (B,) that broadcasts to
(B, B), so the second pass returns (Σ_j c_j)(Σ_i g_i) instead of Σ_i c_i g_i: no example is
clipped on its own, and the noise σC covers a sum that moves by far more than C.

The pair (substitution, so both datasets have B = 4 and the same 1/B): logistic regression with
zero initial weights on records in [−1, 1]², labelled 1, C = 0.1, σ = 1, one full-batch step of
plain SGD. D holds four records at (1, 1), D' three at (1, 1) and one at (−1, −1). Each
per-example gradient has norm √3/2 > C, so every c_j = C/(√3/2). Correct per-example clipping
moves the clipped sum by ‖c(g(1,1) − g(−1,−1))‖ = 0.163 (at most 2C under substitution); ghost
clipping with the (B, 1) loss moves it four times as far, 0.653. The release is the Gaussian
mechanism on that sum with standard deviation σC, so its exact ε at δ comes from the Gaussian
hockey-stick divergence with μ = ‖shift‖/(σC): 6.53 here, where per-example clipping allows at
most μ = 2 for any substitution. The same model with targets of shape (B,) (the loss squeezed)
clips correctly.
"""

import sys
import warnings

import numpy as np
import torch
from opacus import PrivacyEngine
from scipy.optimize import brentq
from scipy.stats import beta, norm

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
CONFIDENCE, DELTA, CLIP, SIGMA = 0.95, 1e-5, 0.1, 1.0
D = np.array([[1.0, 1.0]] * 4)
D_PRIME = np.array([[1.0, 1.0]] * 3 + [[-1.0, -1.0]])
warnings.filterwarnings("ignore")


def gaussian_epsilon(mu: float, delta: float) -> float:
    """ε at δ of the Gaussian mechanism with μ = sensitivity/σ (Balle and Wang 2018, Thm. 8)."""

    def hockey_stick(epsilon: float) -> float:
        return norm.cdf(mu / 2 - epsilon / mu) - np.exp(epsilon) * norm.cdf(-mu / 2 - epsilon / mu)

    return brentq(lambda e: hockey_stick(e) - delta, 0.0, 200.0)


def released(records: np.ndarray, steps: int, mode: str, sigma: float, squeeze: bool = False):
    """Parameters after one full-batch step of Opacus' `make_private` in `mode`, `steps` times."""
    features = torch.tensor(records, dtype=torch.float32)
    targets = torch.ones((len(records), 1))
    data = torch.utils.data.TensorDataset(features, targets)
    outputs = []
    for seed in range(steps):
        model = torch.nn.Linear(2, 1)
        torch.nn.init.zeros_(model.weight)
        torch.nn.init.zeros_(model.bias)
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        loader = torch.utils.data.DataLoader(data, batch_size=len(records))
        engine = PrivacyEngine()
        private = engine.make_private(
            module=model,
            optimizer=optimizer,
            data_loader=loader,
            criterion=torch.nn.BCEWithLogitsLoss(),
            noise_multiplier=sigma,
            max_grad_norm=CLIP,
            poisson_sampling=False,
            grad_sample_mode=mode,
            noise_generator=torch.Generator().manual_seed(seed),
        )
        if mode == "ghost":  # the wrapped criterion comes third
            module, optimizer, criterion, loader = private
        else:
            (module, optimizer, loader), criterion = private, torch.nn.BCEWithLogitsLoss()
        for inputs, labels in loader:
            optimizer.zero_grad()
            logits = module(inputs)
            loss = (
                criterion(logits.squeeze(1), labels.squeeze(1))
                if squeeze
                else criterion(logits, labels)
            )
            loss.backward()
            optimizer.step()
        outputs.append(torch.cat([p.detach().reshape(-1) for p in module.parameters()]).numpy())
    return np.array(outputs, dtype=float)


print("clipped sum shift between D and D' (noiseless, × B):")
shifts, noiseless = {}, {}
for mode, squeeze in (("hooks", False), ("ghost", True), ("ghost", False)):
    means = [released(records, 1, mode, 0.0, squeeze)[0] for records in (D, D_PRIME)]
    noiseless[mode, squeeze] = means
    shifts[mode, squeeze] = np.linalg.norm((means[0] - means[1]) * len(D))
    loss = "(B,) loss" if squeeze else "(B, 1) loss"
    print(f"  {mode:5} clipping, {loss}: {shifts[mode, squeeze]:.3f}")
mu = shifts["ghost", False] / (SIGMA * CLIP)
print(
    f"exact epsilon of the pair at delta = {DELTA:g}: {gaussian_epsilon(mu, DELTA):.2f}"
    f" (mu = {mu:.2f})"
)
print(
    f"largest exact epsilon of per-example clipping under substitution: "
    f"{gaussian_epsilon(2 / SIGMA, DELTA):.2f} (mu = {2 / SIGMA:g})"
)

# Measured: the event "weight sum beyond t", fixed in advance at the midpoint of the noiseless
# releases' weight sums, on the side of D's.
mean_d, mean_d_prime = (mean[:2].sum() for mean in noiseless["ghost", False])
threshold, high_first = (mean_d + mean_d_prime) / 2, mean_d > mean_d_prime
on_d, on_d_prime = released(D, STEPS, "ghost", SIGMA), released(D_PRIME, STEPS, "ghost", SIGMA)
score_d, score_d_prime = on_d[:, :2].sum(axis=1), on_d_prime[:, :2].sum(axis=1)
hits_d = int(np.sum((score_d > threshold) == high_first))
hits_d_prime = int(np.sum((score_d_prime > threshold) == high_first))
alpha = (1 - CONFIDENCE) / 2  # one-sided Clopper–Pearson bounds, β/2 each
lower_d = beta.ppf(alpha, hits_d, STEPS - hits_d + 1) if hits_d else 0.0
upper_d_prime = beta.ppf(1 - alpha, hits_d_prime + 1, STEPS - hits_d_prime)
print(f"event in {hits_d} of {STEPS} steps on D and {hits_d_prime} of {STEPS} on D'")
if lower_d > DELTA:
    bound = np.log((lower_d - DELTA) / upper_d_prime)
    print(f"measured: epsilon >= {bound:.2f} at delta = {DELTA:g}, {CONFIDENCE:.0%} confidence")
assert shifts["ghost", False] > 3 * shifts["hooks", False]
assert abs(shifts["ghost", True] - shifts["hooks", False]) < 1e-4
