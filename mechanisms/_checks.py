"""Parameter checks shared by the catalogue factories."""


def positive(name: str, value: float) -> float:
    if not value > 0:
        raise ValueError(f"{name} must be > 0 for this mechanism (its noise scale divides by it), got {value!r}.")
    return float(value)
