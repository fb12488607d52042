"""Whatever a file holds, importing it gives a run or ImportRefused, never another
error; refused files store nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.app.history.fio_import import import_files
from tierdeck.app.history.store import HistoryStore
from tierdeck.backends.fio.import_json import job_options
from tierdeck.backends.fio.import_specs import JobOptions, imported_jobs
from tierdeck.backends.fio.imports import (
    ParsedImport,
    content_hash,
    jobs_of_command,
    parse_fio_output,
    parse_fio_outputs,
)
from tierdeck.backends.fio.text_sniff import HEAD_BYTES, looks_binary
from tierdeck.core.imports import ImportRefusalKind, ImportRefused

from ....mutations import apply_edits, edits
from ....paths import DEMO_RUNS, FIXTURES

DEMO = DEMO_RUNS
SEEDS = Path("/work/shared/seeds")
REAL = [
    *sorted((FIXTURES / "fio_import").glob("*.json")),
    *sorted((FIXTURES / "fio_import").glob("*.txt")),
    FIXTURES / "fio" / "fio2210_powersj_perfkit.json",
    FIXTURES / "fio" / "fio31_gvisor_sample.json",
    DEMO / "raw-zfs-pool.txt",
    DEMO / "slow-pool.txt",
]
TEXTS = [p.read_text(encoding="utf-8") for p in REAL]
# what a mutation should hit: fio's keywords, units and digits
FIO_BITS = st.sampled_from(
    ["{", "}", '"', ",", ":", "k", "M", "msec", "usec", "nsec", "[", "]", "\n", "-", ".",
     "Infinity", "NaN", "1e999", "0", "9" * 30, "th=[", "IOPS=", "bw=", " WRITE: ", "(g=0)",
     "KB", "iops=", "runt=", "aggrb=", "maxt=", "total=r=", "2.0.8\n", "fio-3.1\n"]
)  # fmt: skip


def parses_or_refuses(data: bytes) -> None:
    try:
        parse_fio_output(data)
    except ImportRefused as exc:
        assert exc.reason


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    parses_or_refuses(data)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_arbitrary_text(text: str) -> None:
    parses_or_refuses(text.encode("utf-8", errors="surrogatepass"))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TEXTS), edits(60_000, 8, 6))
def test_mutated_real_outputs(text: str, changes: list[tuple[int, str]]) -> None:
    parses_or_refuses(apply_edits(text, changes).encode("utf-8", errors="surrogatepass"))


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(TEXTS),
    st.lists(st.tuples(st.integers(0, 60_000), FIO_BITS), max_size=6),
    st.integers(0, 60_000),
)
def test_fio_shaped_mutations_and_cuts(text: str, changes: list[tuple[int, str]], cut: int) -> None:
    mutated = apply_edits(text, changes)
    parses_or_refuses(mutated.encode())
    parses_or_refuses(mutated[: cut % (len(mutated) + 1)].encode())


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> HistoryStore:
    return HistoryStore(tmp_path_factory.mktemp("h") / "history.sqlite3")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=400).filter(lambda b: b"fio" not in b and b"bw=" not in b))
def test_refused_files_store_nothing(store: HistoryStore, tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "garbage.out"
    path.write_bytes(data)
    outcomes = import_files(store, [path], now=0.0)
    assert all(o.run_id is None for o in outcomes)
    assert store.list(status=None) == [] and store.find_import("x") is None


# complete outputs, each once (a report cut before its group lines, then another run's
# group lines alone, reads as one run, as does the same report twice: fio prints them so)
ONE_RUN_TEXTS = [
    (FIXTURES / "fio_import" / name).read_bytes()
    for name in (
        "fio31_dyu_write.txt",
        "fio208_cnm_four_groups.txt",
        "fio333_randrw.txt",
        "fio333_two_jobs.txt",
        "fio333_status_interval.txt",
        "seed001_rust_only.txt",
        "seed003_fio38_write.txt",
    )
] + [(DEMO / name).read_bytes() for name in ("raw-zfs-pool.txt", "btrfs-raid1-mergerfs.txt")]


def _figures(run: ParsedImport) -> tuple[object, ...]:
    return run.fio_version, run.summary, run.runtime_s, [j.name for j in run.job_summaries]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(ONE_RUN_TEXTS), min_size=2, max_size=4, unique=True))
def test_texts_pasted_one_after_another_are_read_as_they_are_alone(texts: list[bytes]) -> None:
    runs = parse_fio_outputs(b"\n".join(texts))
    assert [_figures(run) for run in runs] == [_figures(parse_fio_output(t)) for t in texts]


# --------------------------------------------------------------------------- job options

OPTION_KEYS = st.sampled_from(
    ["rw", "bs", "size", "runtime", "time_based", "direct", "iodepth", "numjobs", "ioengine",
     "rate", "readwrite", "timeout", "kb_base", "startdelay", "name", "x y", "", "BS"]
)  # fmt: skip
OPTION_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["write", "randread", "4k", "16Mi", "1MiB", "0x10", "500ms", "1", "0", "-1"]),
    st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=40),
    st.dictionaries(OPTION_KEYS, OPTION_VALUES, max_size=8),
    st.booleans(),
)
def test_a_job_keeps_what_parses_and_names_what_did_not(
    name: str, options: dict[str, str | None], complete: bool
) -> None:
    read = imported_jobs([JobOptions(name, options, complete)])
    named = {u.option for u in read.unread if u.renamed_to is None}
    for job in read.jobs:
        job.validate()
        job.to_jobfile()
        assert named <= set(options)
        if options.get("rw") in ("write", "randread"):
            assert job.rw == options["rw"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["fio", "./fio", "/usr/bin/fio", "sudo", "$", "#", "(", "`", "--name=",
                         "--direct=1", "x", "--rw=write", "--size=16Mi", "/", " ", "  ", "'"]),
        max_size=40,
    ),
    st.text(max_size=100),
)  # fmt: skip
def test_any_line_is_a_command_or_not(words: list[str], noise: str) -> None:
    for line in ("".join(words), " ".join(words) + noise, noise + " ".join(words)):
        for job in jobs_of_command(line):
            job.validate()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TEXTS), st.sampled_from(["\n", "\r\n"]), st.text(" \t", max_size=3))
def test_the_same_report_saved_otherwise_has_the_same_hash(
    text: str, newline: str, blanks: str
) -> None:
    saved = "\ufeff" + (blanks + "\n").join(text.split("\n")).replace("\n", newline) + newline
    assert content_hash(saved.encode()) == content_hash(text.encode())


def test_real_outputs_are_never_taken_for_binary() -> None:
    for text in TEXTS:
        assert not looks_binary(text.encode())
        assert not looks_binary(text.encode("utf-16"))  # Windows PowerShell's ">"
    notes = "Über die Größe: Schreibdurchsatz gemessen, ätzend langsam. " * 200
    assert not looks_binary(notes.encode("latin-1"))  # text, though not UTF-8
    for seed in sorted(SEEDS.glob("0*.txt")):
        assert not looks_binary(seed.read_bytes())


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_are_binary(seed: int) -> None:
    # fio's output never holds NUL or C0 controls; a random block holds hundreds
    data = random.Random(seed).randbytes(HEAD_BYTES)
    assert looks_binary(data) and looks_binary(data.replace(b"\0", b"x"))
    with pytest.raises(ImportRefused) as caught:
        parse_fio_output(data)
    assert caught.value.kind is ImportRefusalKind.BINARY


_JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["jobname", "groupid", "job options"]),
            _JSON_SCALARS
            | st.dictionaries(st.sampled_from(["numjobs", "rw", "group_reporting"]), _JSON_SCALARS),
        ),
        max_size=6,
    )
)
def test_job_options_of_any_jobs_list(jobs: list[dict[str, object]]) -> None:
    # the clones' count and numjobs decide group_reporting: any shape gives options or none
    for name, options in job_options({"jobs": jobs}):
        assert isinstance(name, str)
        assert options.get("group_reporting") in (None, "1", "0") or any(
            isinstance(j.get("job options"), dict) and "group_reporting" in j["job options"]
            for j in jobs
        )
