"""Hostile or broken input files and arguments (trust, F10): each is one clear line naming the
input and a non-zero exit — never "internal error", never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import run_cli, small_lab_home

BINARY = bytes(range(256)) * 2  # not UTF-8 from the second byte on
DEEP = "[" * 20_000 + "]" * 20_000




@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("badfiles"))


@pytest.mark.parametrize(("args", "content", "said"), [
    (["tool", "metadata", DEEP], None, "malformed JSON arguments: nested too deeply"),
    (["lab", "inject", "{file}"], BINARY, "is not UTF-8 text"),
    (["incidents", "import", "{file}"], BINARY, "is not UTF-8 text"),
    (["inventory", "import", "{file}"], BINARY, "not UTF-8 text"),
    (["inventory", "import", "{file}"], b"name,role,site,cf_asn\nsw1,leaf,dc9,99999999999999999999\n",
     "cf_asn"),
    (["inventory", "import", "{file}"], b"name,role,site,primary_ip4\nsw1,leaf,dc9,10.250.0.300/24\n",
     "'10.250.0.300/24' is not an IP address"),
    (["inventory", "import", "--replace", "{file}"], b"name,role,site\n", "add --force"),
], ids=["deep-json", "binary-scenario", "binary-history", "binary-csv", "asn-out-of-range",
        "bad-mgmt-address", "header-only-replace"])
def test_bad_input_is_one_line(home: Path, tmp_path: Path, args: list[str], content: bytes | None,
                               said: str) -> None:
    path = tmp_path / ("devices.csv" if "inventory" in args else "input.yaml")
    if content is not None:
        path.write_bytes(content)
    done = run_cli(home, *[a.replace("{file}", str(path)) for a in args])
    assert done.returncode != 0 and said in done.stderr, done.stderr[-500:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0] and "Traceback" not in done.stderr
    assert run_cli(home, "lab", "status").stdout.startswith("lab default/small seed 7")  # all still there


EVIL_TAG = b"id: x\nquestion: !!python/object/apply:os.system ['id > /tmp/netopsai-pwned']\n"
DEEP_YAML = ("a: " + "[" * 20_000 + "]" * 20_000 + "\n").encode()


@pytest.mark.parametrize(("args", "name", "content", "said"), [
    (["lab", "inject"], "evil.yaml", EVIL_TAG, "could not determine a constructor"),
    (["inventory", "import"], "evil.yaml", EVIL_TAG, "could not determine a constructor"),
    (["incidents", "import"], "deep.json", DEEP.encode(), "malformed JSON: nested too deeply"),
    (["lab", "inject"], "deep.yaml", DEEP_YAML, "nested too deeply"),
    (["inventory", "import"], "deep.yaml", DEEP_YAML, "nested too deeply"),
], ids=["python-tag-scenario", "python-tag-inventory", "deep-history", "deep-scenario", "deep-inventory"])
def test_hostile_data_files_are_one_line(home: Path, tmp_path: Path, args: list[str], name: str,
                                         content: bytes, said: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    done = run_cli(home, *args, str(path))
    assert done.returncode != 0 and said in done.stderr, done.stderr[-500:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0] and "Traceback" not in done.stderr
    assert not Path("/tmp/netopsai-pwned").exists()
    assert run_cli(home, "lab", "status").stdout.startswith("lab default/small seed 7")
