"""A process that ran the small model exits without "ResourceWarning: unclosed file /dev/null"
(llama_cpp opens /dev/null twice at import and never closes it; Engram closes it at exit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import sys
from pathlib import Path
from engram.models.local import LocalModel
model = LocalModel(Path(sys.argv[1]), n_ctx=512, state_cache_mb=0)
said = "".join(model.stream_chat([{"role": "user", "content": "Hi"}], max_tokens=4))
model.close()
print("answered" if said else "silent")
"""


@pytest.mark.slow
def test_a_process_that_ran_the_model_exits_with_a_clean_stderr(small_model_path: Path) -> None:
    strict = ["-X", "dev", "-W", "error::ResourceWarning"]
    run = subprocess.run(
        [sys.executable, *strict, "-c", SCRIPT, str(small_model_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONTRACEMALLOC": "20"},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() in {"answered", "silent"}
    assert run.stderr == ""
