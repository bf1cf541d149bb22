"""Model management in the application (``engram.assistant.model_admin``): the model manager
and ``engram models`` remove and import models with the same code, so they refuse the same
things in the same words."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import tiny
from engram.assistant import model_admin
from engram.assistant.model_admin import ModelEntry
from engram.cli.main import main
from engram.core import settings
from engram.core.errors import InputError


@pytest.fixture
def gguf(small_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A GGUF file to import, into a models folder of the test's own (imports and removals
    never touch the shared one)."""
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    return small_model_path


def link_installed(entry: ModelEntry, shared: Path) -> None:
    """Put a model of the shared test models folder into this test's own (hard links)."""
    for spec in entry.files:
        source, target = shared / entry.id / spec.path, entry.folder() / spec.path
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)


def test_removing_refuses_a_model_in_use_and_one_being_downloaded_and_forgets_an_import(
    gguf: Path, starter_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    starter = model_admin.catalogue().get(tiny.EMBEDDER)  # a starter model, installed here
    assert starter.starter
    link_installed(starter, starter_models)
    settings.save(tiny.settings(embedding_model=starter.id))  # the model that finds memories
    assert main(["models", "remove", starter.id]) == 2  # the terminal cannot ask: refused
    said = capsys.readouterr().err
    assert f"{starter.name} is in use" in said and "Choose another" in said
    assert model_admin.installed(starter)
    settings.save(settings.load().choosing(embedding="paraphrase-multilingual-minilm-l12-v2-q"))
    assert main(["models", "remove", starter.id]) == 0  # a starter, no longer in use
    assert not starter.folder().exists() and not model_admin.installed(starter)

    entry, info = model_admin.import_gguf(gguf, ("small",), "mine")
    assert model_admin.installed(entry) and info.architecture
    with pytest.raises(InputError, match="is being downloaded"):
        model_admin.remove(entry, downloading=True)
    assert model_admin.installed(entry)  # refused: nothing was deleted
    assert model_admin.remove(entry)  # it was an import: forgotten too
    assert not entry.folder().exists()
    assert "mine" not in {e.id for e in model_admin.catalogue().models}


def test_an_imported_model_says_how_to_use_it_and_models_use_chooses_it(
    gguf: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "import", str(gguf), "--roles", "small", "--id", "mine"]) == 0
    said = capsys.readouterr().out
    assert "engram models use mine --as small" in said and "--as large" not in said

    assert main(["models", "use", "mine", "--as", "large"]) == 2  # imported to answer only
    assert "cannot play the large role" in capsys.readouterr().err
    assert settings.load().small_model != "mine"
    assert main(["models", "use", "mine"]) == 0
    assert "now answers with" in capsys.readouterr().out
    assert settings.load().small_model == "mine"

    missing = model_admin.catalogue().starters()[-1]  # this test's models folder has none
    assert main(["models", "use", missing.id, "--as", missing.roles[0]]) == 2
    assert f"engram models download {missing.id}" in capsys.readouterr().err
    assert settings.load().small_model == "mine"
