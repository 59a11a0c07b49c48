"""The names the command line, the pytest plugin, configs and settings accept: one registry,
with no imports, so that ``dpfuzz --help`` loads nothing else. Each registry of what a name
builds (`testers`, `finders`, `relations`, `settings.BUDGETS`, `claims.CLAIM_TYPES`) has
exactly these keys, in this order (`tests/test_cli.py` checks)."""

TESTERS = ("hockey_stick", "histogram", "mmd", "renyi", "float_bits")
FINDERS = ("random", "grid", "hypothesis", "vizier")
RELATIONS = ("add_remove", "substitute", "linf")
BUDGETS = ("default", "quick", "thorough")
SAMPLING = ("auto", "adaptive", "fixed", "sequential")
ARITHMETIC = ("real", "float")
VERIFY_DIRECTIONS = ("both", "one")
CLAIM_TYPES = ("PureDP", "ApproxDP", "RenyiDP", "GaussianDP", "ZeroConcentratedDP")
