"""Answer as a recorded `zpool` / `zfs` would, for one test scenario.

Called by the `zpool` and `zfs` wrapper scripts in tests/shims/zfs/<scenario>/ as
``zfs_replay.py SCENARIO_DIR TOOL [ARGS...]``. The scenario's ``replay.json`` says:

* ``commands``: exact argv -> {stdout_file|stdout, stderr_file|stderr, returncode}
* ``json_rejected``: for releases before OpenZFS 2.3, the answer to any argv of a
  subcommand ("zpool status", "zpool list", "zfs list") that carries ``-j``; the real
  2.1 binaries print "invalid option 'j'" plus the subcommand's usage and exit 2.
* ``otherwise``: per tool, the answer to anything else (a missing kernel module makes
  every command fail the same way). Without it, unrecorded argv exit 99 and say so,
  so a test that runs an unexpected command fails loudly.

File paths are relative to the tests/ directory, so scenarios share the fixtures in
tests/fixtures/zfs/ instead of copying them. Standard library only: it runs under
``python3 -S`` for speed.
"""

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def _text(entry, key):
    if key + "_file" in entry:
        return (TESTS / entry[key + "_file"]).read_text(encoding="utf-8")
    return entry.get(key, "")


def _answer(entry):
    sys.stdout.write(_text(entry, "stdout"))
    sys.stderr.write(_text(entry, "stderr"))
    sys.stdout.flush()
    sys.stderr.flush()
    return int(entry.get("returncode", 0))


def main(argv):
    scenario, tool, args = Path(argv[1]), argv[2], argv[3:]
    table = json.loads((scenario / "replay.json").read_text(encoding="utf-8"))
    full = [tool, *args]
    for entry in table.get("commands", []):
        if entry["argv"] == full:
            return _answer(entry)
    if args and ("-j" in args or "--json" in args):
        rejected = table.get("json_rejected", {}).get(f"{tool} {args[0]}")
        if rejected is not None:
            return _answer(rejected)
    otherwise = table.get("otherwise", {}).get(tool)
    if otherwise is not None:
        return _answer(otherwise)
    sys.stderr.write(f"zfs_replay: nothing recorded for: {' '.join(full)}\n")
    return 99


if __name__ == "__main__":
    sys.exit(main(sys.argv))
