"""Parameter checks shared by the catalogue factories."""

from dpfuzz.validation import check_number


def positive(name: str, value: float) -> float:
    """A noise-scale parameter: a real number > 0 (the noise scale divides by it)."""
    return check_number(name, value, minimum=0.0, exclusive_minimum=True)
