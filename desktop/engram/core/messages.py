"""The one shape of a chat message, from the prompt to the model runtimes and back.

``role`` and ``content``; a tool step also carries ``tool_calls`` or ``name``. One alias for
every layer, so a message built by the turn is the message a runtime reads.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
