"""Find GGUF models on the Hugging Face hub (or the mirror in Settings) beyond the catalogue.

Two requests of the hub's public API, over huggingface_hub's shared HTTP client with the
download options' endpoint, timeout and auth headers (proxies come from the environment, as for
downloads):

- ``GET /api/models?search=…&filter=gguf&sort=downloads`` lists repositories tagged ``gguf``;
- ``GET /api/models/{repo}?blobs=true`` lists a repository's files with their sizes, the LFS
  sha256 and the commit they belong to.

A chosen file becomes an entry of the imported registry (``<data dir>/imported.toml``) whose hub
source is pinned to that commit and sha256, so :mod:`engram.models.download` fetches and verifies
it like any catalogue model; its context length and languages are guesses (4096 tokens, English)
until the download reads them from the file's GGUF header. Failures are
:class:`~engram.core.errors.DownloadError` with a message and what to do; nothing here imports Qt.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from engram.core import log
from engram.core.errors import DownloadError, tr
from engram.models import gguf_import
from engram.models.catalogue import ModelEntry
from engram.models.download import Options, hub_module

_log = log.get("models.hub_search")
LIMIT = 30
_SPLIT = re.compile(r"^(?P<stem>.+)-(?P<part>\d{5})-of-(?P<count>\d{5})\.gguf$", re.IGNORECASE)
_QUANT = re.compile(r"(?:I?Q\d[A-Z0-9_]*|F16|BF16|F32)", re.IGNORECASE)


@dataclass(frozen=True)
class Hit:
    """One repository the search found."""

    repo: str
    downloads: int | None = None
    likes: int | None = None


@dataclass(frozen=True)
class Part:
    """One file on the hub (a split model has several)."""

    path: str  # its name in the repository
    size: int
    sha256: str | None


@dataclass(frozen=True)
class GgufFile:
    """A model one can choose: a .gguf file, or the parts of a split one, at one commit."""

    repo: str
    revision: str | None
    parts: tuple[Part, ...]

    @property
    def name(self) -> str:
        """The file's name as the user sees it (the first part for a split model)."""
        return self.parts[0].path

    @property
    def label(self) -> str:
        """The file's name without its folder, and without the part number of a split model."""
        name = self.name.rsplit("/", 1)[-1]
        match = _SPLIT.match(name)
        return f"{match['stem']}.gguf" if match else name

    @property
    def size(self) -> int:
        return sum(p.size for p in self.parts)

    @property
    def quantization(self) -> str:
        stem = self.name.rsplit("/", 1)[-1].removesuffix(".gguf")
        found = _QUANT.findall(stem.replace(".", "-"))
        return found[-1].upper() if found else ""


def search(query: str, options: Options, limit: int = LIMIT) -> list[Hit]:
    """The GGUF repositories matching ``query``, most downloaded first (empty when none)."""
    params = {
        "search": query.strip(),
        "filter": "gguf",
        "sort": "downloads",
        "direction": "-1",
        "limit": str(limit),
    }
    answer = _get(options, "/api/models", params)
    if not isinstance(answer, list):
        raise _unreadable(options)
    hits = []
    for item in answer:
        repo = item.get("id") or item.get("modelId") if isinstance(item, dict) else None
        if isinstance(repo, str) and repo:
            hits.append(Hit(repo, _count(item.get("downloads")), _count(item.get("likes"))))
    return hits


def files(repo: str, options: Options) -> list[GgufFile]:
    """The models of a repository: its .gguf files (split ones as one), smallest first.

    Vision projectors (``mmproj…``) are left out: they are not chat models on their own.
    """
    answer = _get(options, f"/api/models/{quote(repo, safe='/')}", {"blobs": "true"})
    if not isinstance(answer, dict) or not isinstance(answer.get("siblings"), list):
        raise _unreadable(options)
    revision = answer.get("sha") if isinstance(answer.get("sha"), str) else None
    singles: list[GgufFile] = []
    split: dict[str, list[tuple[int, Part]]] = {}
    for sibling in answer["siblings"]:
        part = _part(sibling)
        if part is None:
            continue
        match = _SPLIT.match(part.path)
        if match:
            split.setdefault(match["stem"], []).append((int(match["part"]), part))
        else:
            singles.append(GgufFile(repo, revision, (part,)))
    for numbered in split.values():
        singles.append(GgufFile(repo, revision, tuple(p for _, p in sorted(numbered))))
    return sorted(singles, key=lambda f: (f.size, f.name))


def register(choice: GgufFile) -> ModelEntry:
    """The catalogue entry for a chosen file: added to the imported registry (for both roles),
    or the one added earlier for the same file."""
    model_id = _model_id(choice)
    for entry in gguf_import.registered():
        if entry.id == model_id:
            return entry
    repo_name = choice.repo.rsplit("/", 1)[-1]
    quant = f", {choice.quantization}" if choice.quantization else ""
    hf = {"repo": choice.repo, "revision": choice.revision or "main"}
    raw: dict[str, Any] = {
        "id": model_id,
        "name": f"{repo_name}{quant}",
        "roles": ["small", "large"],
        "format": "gguf",
        "context_length": 4096,
        "ram_gb": round(choice.size / 1e9 * 1.2 + 0.3, 1),
        "languages": ["en"],
        "notes": f"{choice.repo}: {choice.name}",
        "hf": hf,
    }
    parts = []
    for part in choice.parts:
        spec: dict[str, Any] = {"path": part.path.rsplit("/", 1)[-1], "size": part.size}
        if part.sha256:
            spec["sha256"] = part.sha256
        if "/" in part.path:
            spec["hf_file"] = part.path
        parts.append(spec)
    entry = gguf_import.add_entry(raw, parts)
    _log.info("added %s from %s", entry.id, choice.repo)
    return entry


def _model_id(choice: GgufFile) -> str:
    name = choice.name.rsplit("/", 1)[-1]
    match = _SPLIT.match(name)
    stem = match["stem"] if match else name.removesuffix(".gguf")
    owner = choice.repo.split("/", 1)[0]
    base = re.sub(r"[^a-z0-9._-]+", "-", f"{owner}-{stem}".lower()).strip("-._") or "model"
    return f"hub-{base}"[:64].rstrip("-._")


def _part(sibling: Any) -> Part | None:
    if not isinstance(sibling, dict):
        return None
    path = sibling.get("rfilename")
    if not isinstance(path, str) or not path.lower().endswith(".gguf"):
        return None
    if path.rsplit("/", 1)[-1].lower().startswith("mmproj"):
        return None
    lfs = sibling.get("lfs")
    lfs = lfs if isinstance(lfs, dict) else {}
    size = _count(lfs.get("size")) or _count(sibling.get("size"))
    if not size:
        return None
    sha = lfs.get("sha256") or lfs.get("oid")
    sha = sha.lower() if isinstance(sha, str) and re.fullmatch(r"[0-9a-fA-F]{64}", sha) else None
    return Part(path, size, sha)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _base(options: Options) -> str:
    """The hub's address, huggingface_hub imported (after the Xet switch) for what follows."""
    hub_module(options)
    if options.endpoint:
        return options.endpoint.rstrip("/")
    from huggingface_hub import constants

    return str(constants.ENDPOINT).rstrip("/")


def _get(options: Options, path: str, params: dict[str, str]) -> Any:
    """One GET of the hub's API, its JSON, or a known error saying what went wrong."""
    import httpx

    base = _base(options)
    utils: Any = importlib.import_module("huggingface_hub.utils")  # lazy exports, untyped here

    try:
        response = utils.get_session().get(
            base + path,
            params=params,
            headers=utils.build_hf_headers(),
            timeout=options.timeout,
            follow_redirects=True,
        )
    except ConnectionError as exc:  # huggingface_hub's OfflineModeIsEnabled
        raise DownloadError(
            tr("Searching the hub is off: {error}"),
            tr("Unset HF_HUB_OFFLINE to search and download models."),
            error=str(exc),
        ) from exc
    except httpx.TimeoutException as exc:
        raise DownloadError(
            tr("The model hub at {url} did not answer within {seconds:.0f} s."),
            tr(
                "Check the network connection and search again, or set a download mirror in"
                " Settings → Appearance & data."
            ),
            url=base,
            seconds=options.timeout,
        ) from exc
    except httpx.HTTPError as exc:
        raise DownloadError(
            tr("Cannot reach the model hub at {url} ({error})."),
            tr(
                "Check the network connection (or the proxy), or set a download mirror in"
                " Settings → Appearance & data."
            ),
            url=base,
            error=type(exc).__name__,
        ) from exc
    if response.status_code == 404 and path != "/api/models":
        raise DownloadError(
            tr("The repository is not on the hub at {url}."),
            tr("Search again: it may have been renamed or removed."),
            url=base,
        )
    if response.status_code >= 400:
        raise DownloadError(
            tr("The model hub at {url} answered HTTP {status}."),
            tr("The hub (or the mirror) has a problem; try again in a few minutes.")
            if response.status_code >= 500 or response.status_code == 429
            else tr("Check the download mirror in Settings → Appearance & data."),
            url=base,
            status=response.status_code,
        )
    try:
        return response.json()
    except ValueError as exc:
        raise _unreadable(options) from exc


def _unreadable(options: Options) -> DownloadError:
    return DownloadError(
        tr("The model hub at {url} sent an answer Engram cannot read."),
        tr("Check the download mirror in Settings → Appearance & data."),
        url=_base(options),
    )
