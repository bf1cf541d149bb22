"""Importing a local GGUF file: read its header metadata and register it in the catalogue.

The GGUF header is small and simple (magic, version, tensor count, key/value count, typed
key/values, then tensor descriptions), so it is read here in pure Python without loading the
model. An imported file is hard-linked into the models folder when it lives on the same disk and
copied otherwise (so deleting or moving the original never breaks Engram), and an entry is added
to ``<data dir>/imported.toml``, which the catalogue merges.

A file found with a hub search is registered before it is downloaded (with a 4096-token context
and English as guesses); :func:`update_from_header` corrects that entry from the header once the
download has put the file in place.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from engram.core import log, paths
from engram.core.atomic import atomic_write
from engram.core.errors import CatalogueError, EngramError, InputError, ModelFileError, tr
from engram.models import catalogue, hardware

_log = log.get("models.import")
MAGIC = b"GGUF"
_SCALARS = {
    0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q",
    12: "<d",
}  # fmt: skip
_STRING, _ARRAY = 8, 9
_MAX_COUNT = 1 << 32
_MAX_STRING = 1 << 24
# String arrays read whole (the others, such as vocabularies, are skipped and only counted).
_KEPT_LISTS = frozenset({"general.languages"})
_MAX_KEPT = 1024
_LANGUAGE = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$")
# The registry is rewritten from the download thread and from the model manager's worker.
_registry_lock = threading.Lock()
# llama.cpp's llama_ftype values (general.file_type) and their usual names.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M",
    30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
}  # fmt: skip


@dataclass(frozen=True)
class GgufInfo:
    """What Engram needs to know about a GGUF file."""

    path: Path
    version: int
    architecture: str
    name: str
    size_label: str
    context_length: int | None
    chat_template: str | None
    parameter_count: int
    quantization: str
    file_size: int
    metadata: dict[str, Any]
    languages: tuple[str, ...] = ()  # general.languages as language codes, when the file says


def read(path: Path) -> GgufInfo:
    """Parse the header of a GGUF file; raise :class:`ModelFileError` when it is not one."""
    try:
        with path.open("rb") as fh:
            meta, params, version = _parse(fh)
    except FileNotFoundError as exc:
        raise ModelFileError(
            tr("{path} does not exist."), tr("Check the file name."), path=path
        ) from exc
    except (OSError, struct.error, UnicodeDecodeError, ValueError) as exc:
        raise ModelFileError(
            tr("{path} is not a readable GGUF file ({error})."),
            tr("Choose a .gguf model file (it may be truncated or damaged)."),
            path=path,
            error=str(exc),
        ) from exc
    arch = str(meta.get("general.architecture", "unknown"))
    ftype = meta.get("general.file_type")
    context = meta.get(f"{arch}.context_length")
    return GgufInfo(
        path=path,
        version=version,
        architecture=arch,
        name=str(meta.get("general.name") or path.stem),
        size_label=str(meta.get("general.size_label") or _label(params)),
        context_length=int(context) if isinstance(context, int) else None,
        chat_template=_text(meta.get("tokenizer.chat_template")),
        parameter_count=params,
        quantization=FILE_TYPES.get(ftype, f"type {ftype}") if isinstance(ftype, int) else "?",
        file_size=path.stat().st_size,
        metadata=meta,
        languages=_languages(meta.get("general.languages")),
    )


def _languages(value: Any) -> tuple[str, ...]:
    """The language codes of ``general.languages`` ("en", "zh", "pt-br"); names such as
    "English" are not codes and are left out."""
    codes: list[str] = []
    for item in value if isinstance(value, list) else []:
        code = item.strip().lower().replace("_", "-") if isinstance(item, str) else ""
        if _LANGUAGE.match(code) and code not in codes:
            codes.append(code)
    return tuple(codes)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _label(params: int) -> str:
    return f"{params / 1e9:.1f}B" if params >= 1e9 else f"{params / 1e6:.0f}M"


def _parse(fh: IO[bytes]) -> tuple[dict[str, Any], int, int]:
    if fh.read(4) != MAGIC:
        raise ValueError("no GGUF magic at the start")
    (version,) = struct.unpack("<I", fh.read(4))
    if version not in (2, 3):
        raise ValueError(f"GGUF version {version} is not supported")
    tensors, kvs = _counts(struct.unpack("<QQ", fh.read(16)))
    meta: dict[str, Any] = {}
    for _ in range(kvs):
        key = _string(fh)
        (kind,) = struct.unpack("<I", fh.read(4))
        meta[key] = _value(fh, kind, keep=key in _KEPT_LISTS)
    params = 0
    for _ in range(tensors):
        _string(fh)
        (dims,) = struct.unpack("<I", fh.read(4))
        shape = struct.unpack(f"<{dims}Q", fh.read(8 * dims))
        fh.read(12)  # ggml type (uint32) + data offset (uint64)
        params += math.prod(shape)
    return meta, params, version


def _counts(values: tuple[int, ...]) -> tuple[int, ...]:
    """Reject the absurd lengths a damaged header would otherwise make us loop over."""
    if any(v > _MAX_COUNT for v in values):
        raise ValueError("implausible count in the header (damaged file?)")
    return values


def _string(fh: IO[bytes]) -> str:
    (length,) = struct.unpack("<Q", fh.read(8))
    if length > _MAX_STRING:
        raise ValueError("implausible string length in the header (damaged file?)")
    data = fh.read(length)
    if len(data) != length:
        raise ValueError("file ends inside the header")
    return data.decode("utf-8")


def _value(fh: IO[bytes], kind: int, keep: bool = False) -> Any:
    if kind in _SCALARS:
        fmt = _SCALARS[kind]
        return struct.unpack(fmt, fh.read(struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _string(fh)
    if kind == _ARRAY:  # vocabularies, merges, scores: skipped, only their length is kept
        item_kind, count = struct.unpack("<IQ", fh.read(12))
        _counts((count,))
        if keep and item_kind == _STRING and count <= _MAX_KEPT:
            return [_string(fh) for _ in range(count)]
        if item_kind in _SCALARS:
            fh.seek(struct.calcsize(_SCALARS[item_kind]) * count, os.SEEK_CUR)
        elif item_kind == _STRING:
            for _ in range(count):
                (length,) = struct.unpack("<Q", fh.read(8))
                fh.seek(length, os.SEEK_CUR)
        else:
            for _ in range(count):
                _value(fh, item_kind)
        return count
    raise ValueError(f"unknown GGUF value type {kind}")


def import_file(
    source: Path, roles: tuple[str, ...] = ("small", "large"), model_id: str | None = None
) -> catalogue.ModelEntry:
    """Register a GGUF file: link or copy it into the models folder and add a catalogue entry."""
    info = read(source)
    bad = set(roles) - {"small", "large"}
    if bad or not roles:
        raise InputError(
            tr("A GGUF model can play small and/or large, not {roles}.")
            if bad
            else tr("A GGUF model needs a role: small and/or large."),
            tr("Pass --roles small,large (or one of them)."),
            roles=", ".join(sorted(bad)),
        )
    model_id = model_id or _make_id(info)
    existing = {e.id for e in catalogue.load().models}
    if model_id in existing:
        raise InputError(
            tr("A model with id {id!r} is already in the catalogue."),
            tr("Pass another --id."),
            id=model_id,
        )
    placed = _placed(source, info, model_id)
    raw = {
        "id": model_id,
        "name": f"{info.name} ({info.quantization}, imported)",
        "roles": list(roles),
        "format": "gguf",
        "context_length": info.context_length or 4096,
        "ram_gb": round(info.file_size / 1e9 * 1.2 + 0.3, 1),
        "languages": list(info.languages) or ["en"],
        "notes": f"{info.architecture}, {info.size_label} parameters, {info.quantization}",
        "imported_from": str(source.resolve()),
    }
    entry = add_entry(raw, [{"path": placed.name}])
    _log.info("imported %s as %s", source, model_id)
    return entry


def add_entry(raw: dict[str, Any], files: list[dict[str, Any]]) -> catalogue.ModelEntry:
    """Append an entry (an imported file, or a hub file found by a search) to the registry and
    return it as the catalogue reads it."""
    with _registry_lock:
        _write_registry([*_registry_models(), {**raw, "files": files}])
    return catalogue.load().get(str(raw["id"]))


def registered() -> list[catalogue.ModelEntry]:
    """The entries of the registry (imported files and hub files added by a search)."""
    return [e for e in catalogue.load().models if e.source == catalogue.imported_path()]


def update_from_header(entry: catalogue.ModelEntry) -> catalogue.ModelEntry:
    """Correct a hub-registered entry from the GGUF header of its downloaded (first) file.

    The context length comes from ``{arch}.context_length`` and the languages from
    ``general.languages`` when the header has them; the rest stays. Entries not added by a hub
    search are left alone. A header that cannot be read, or a registry that cannot be written,
    leaves the registry as it was (it is rewritten whole or not at all) and is logged. Returns
    the entry as the catalogue now reads it.
    """
    if entry.source != catalogue.imported_path() or not entry.hf_repo or entry.format != "gguf":
        return entry
    try:
        info = read(entry.main_file())
    except ModelFileError as exc:
        _log.warning("%s keeps its context length and languages: %s", entry.id, exc.message)
        return entry
    changes: dict[str, Any] = {}
    if info.context_length and info.context_length > 0:
        changes["context_length"] = info.context_length
    if info.languages:
        changes["languages"] = list(info.languages)
    try:
        with _registry_lock:
            models = _registry_models()
            model = next((m for m in models if m.get("id") == entry.id), None)
            if model is None or all(model.get(k) == v for k, v in changes.items()):
                return entry  # forgotten meanwhile, or nothing to correct
            model.update(changes)
            _write_registry(models)
        updated = catalogue.load().get(entry.id)
    except (EngramError, OSError) as exc:
        _log.warning("%s was not updated from its GGUF header: %s", entry.id, exc)
        return entry
    _log.info(
        "%s from its GGUF header: context %d tokens, languages %s",
        entry.id,
        updated.context_length,
        ", ".join(updated.languages),
    )
    return updated


def forget(model_id: str) -> bool:
    """Remove an imported model from the registry; True when it was there."""
    with _registry_lock:
        models = _registry_models()
        kept = [m for m in models if m.get("id") != model_id]
        if len(kept) == len(models):
            return False
        _write_registry(kept)
    return True


def _make_id(info: GgufInfo) -> str:
    base = re.sub(r"[^a-z0-9._-]+", "-", info.path.stem.lower()).strip("-._") or "model"
    return f"local-{base}"[:64]


def _placed(source: Path, info: GgufInfo, model_id: str) -> Path:
    folder = paths.models_dir() / model_id
    target = folder / source.name
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{source.name}.import"
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        if info.file_size + 16 * 1024 * 1024 > hardware.free_disk_bytes(folder):
            raise InputError(
                tr("Copying {name} needs {size:.2f} GB of free disk space."),
                tr("Free some space, or put the file on the same disk as the models folder."),
                name=source.name,
                size=info.file_size / 1e9,
            ) from None
        try:
            shutil.copyfile(source, tmp)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise InputError(
                tr("Could not copy {path} ({error})."), path=source, error=exc.strerror or str(exc)
            ) from exc
    os.replace(tmp, target)
    return target


def _registry_models() -> list[dict[str, Any]]:
    path = catalogue.imported_path()
    if not path.is_file():
        return []
    models = catalogue.read_table_file(path).get("model", [])
    if not isinstance(models, list):
        raise CatalogueError(
            tr("{path} is damaged."), tr("Delete it and import the models again."), path=path
        )
    return models


def _write_registry(models: list[dict[str, Any]]) -> None:
    """Rewrite imported.toml atomically."""
    path = catalogue.imported_path()
    lines = [
        "# Models imported with `engram models import` or found on the hub; written by Engram.",
        "",
    ]
    lines.append(f"schema_version = {catalogue.SCHEMA_VERSION}")
    for model in models:
        lines += ["", "[[model]]"]
        lines += [f"{k} = {_toml(v)}" for k, v in model.items() if k != "files"]
        for spec in model.get("files", []):
            lines += ["", "[[model.files]]", *(f"{k} = {_toml(v)}" for k, v in spec.items())]
    with atomic_write(path) as handle:
        handle.write("\n".join(lines) + "\n")


def _toml(value: Any) -> str:
    """A TOML literal for the simple values the registry holds (JSON strings are valid TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):  # an inline table, such as hf = { repo = "…", revision = "…" }
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value, ensure_ascii=False)
