"""Several testers on the same samples, each at β/k (Bonferroni): the claim is refuted when any
of them refutes it, so the whole test keeps its false-alarm probability β. This is how
``arithmetic="float"`` adds the float bit-pattern test to an audit's own tester."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from dpfuzz.claims import Claim
from dpfuzz.testers.base import Tester, TestResult, check_beta


class EitherTester(Tester):
    """Fits every tester on the training samples and certifies each fitted object at β/k.

    ``evaluate`` returns a refuting result if there is one, else the one the search scores
    highest; its `tester` field names the sub-tester, and its `beta` is that sub-test's β/k.
    """

    def __init__(self, testers: list[Tester] | tuple[Tester, ...]):
        self.testers = tuple(testers)
        self.name = "+".join(tester.name for tester in self.testers)
        self.claim_types = self.testers[0].claim_types
        self.directional = any(tester.directional for tester in self.testers)

    def check_claim(self, claim: Claim) -> None:
        for tester in self.testers:
            tester.check_claim(claim)

    def fits_cheaply(self, outputs: np.ndarray) -> bool:
        return all(tester.fits_cheaply(outputs) for tester in self.testers)

    def _tester(self, result: TestResult) -> Tester:
        return next(
            (tester for tester in self.testers if tester.name == result.tester), self.testers[0]
        )

    def threshold(self, claim: Claim) -> float:
        return self.testers[0].threshold(claim)

    def max_certifiable(self, claim: Claim, samples: int, beta: float) -> float | None:
        return self.testers[0].max_certifiable(claim, samples, beta / len(self.testers))

    def score(self, result: TestResult) -> float:
        return self._tester(result).score(result)

    def detectable(self, result: TestResult) -> dict:
        return self._tester(result).detectable(result)

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> Any:
        share = check_beta(beta) / len(self.testers)
        return tuple(
            tester.fit(train0, train1, claim, share, rng, eval_size=eval_size)
            for tester in self.testers
        )

    def fit_both(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> tuple:
        share = check_beta(beta) / len(self.testers)
        fitted = [
            tester.fit_both(train0, train1, claim, share, rng, eval_size=eval_size)
            for tester in self.testers
        ]
        return tuple(zip(*fitted))

    def evaluate(
        self, fitted: Any, test0: np.ndarray, test1: np.ndarray, claim: Claim, beta: float
    ) -> TestResult:
        share = check_beta(beta) / len(self.testers)
        results = [
            tester.evaluate(item, test0, test1, claim, share)
            for tester, item in zip(self.testers, fitted)
        ]
        refuting = [result for result in results if result.violated]
        chosen = max(
            refuting or results,
            key=lambda result: (
                (result.bound - result.threshold) if refuting else self.score(result)
            ),
        )
        others = {result.tester: result.to_dict() for result in results if result is not chosen}
        return replace(
            chosen,
            details={**chosen.details, "other_testers": others},
            seconds=sum(r.seconds for r in results),
        )
