"""Answer as a recorded `smartctl` would, for one test scenario, and write down how it
was called.

Called by tests/shims/smart/<scenario>/smartctl as ``smartctl_replay.py SCENARIO_DIR
[ARGS...]``. The scenario's ``replay.json`` maps exact argv (without the leading
"smartctl") to ``{stdout_file, returncode}``, paths relative to tests/. Unrecorded argv
exit 99 and say so: a test that calls smartctl in an unexpected way (without
``-n standby``, so that it could wake a sleeping disk) fails loudly. With
SMARTCTL_SHIM_LOG set, each call's arguments are appended to that file, one line each,
so a test can check the flags every call carried. Standard library only.
"""

import json
import os
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def main(argv):
    scenario, args = Path(argv[1]), argv[2:]
    log = os.environ.get("SMARTCTL_SHIM_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(json.dumps(args) + "\n")
    table = json.loads((scenario / "replay.json").read_text(encoding="utf-8"))
    for entry in table["commands"]:
        if entry["argv"] == args:
            sys.stdout.write((TESTS / entry["stdout_file"]).read_text(encoding="utf-8"))
            sys.stdout.flush()
            return int(entry.get("returncode", 0))
    sys.stderr.write(f"smartctl_replay: nothing recorded for: {' '.join(args)}\n")
    return 99


if __name__ == "__main__":
    sys.exit(main(sys.argv))
