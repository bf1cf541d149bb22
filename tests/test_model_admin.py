"""Model management in the application (``engram.assistant.model_admin``): the model manager
and ``engram models`` remove and import models with the same code, so they refuse the same
things in the same words."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.assistant import model_admin
from engram.cli.main import main
from engram.core import settings
from engram.core.errors import InputError


@pytest.fixture
def gguf(small_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A GGUF file to import, into a models folder of the test's own (imports and removals
    never touch the shared one)."""
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    return small_model_path


def test_removing_refuses_a_starter_and_one_being_downloaded_and_forgets_an_import(
    gguf: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    starter = model_admin.catalogue().starters()[0]
    with pytest.raises(InputError, match="starter model that Engram falls back to") as window:
        model_admin.remove(starter)  # what the model manager's Delete calls
    assert main(["models", "remove", starter.id]) == 2  # and the terminal
    assert window.value.message in capsys.readouterr().err

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
