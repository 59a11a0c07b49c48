"""``python -m dpfuzz``: the command line (`dpfuzz.cli`)."""

from dpfuzz.cli import main

raise SystemExit(main())
