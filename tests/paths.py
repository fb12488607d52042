"""Where the checkout's own files are, for tests that read them (wherever the test sits)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO_RUNS = REPO / "app" / "history" / "demo_runs"
DEMO_HOST = REPO / "app" / "machine" / "demo_host"
SWEEP_EXAMPLES = REPO / "app" / "sweep" / "examples"
FIXTURES = REPO / "tests" / "fixtures"
