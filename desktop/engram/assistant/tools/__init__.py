"""Tools the assistant can call: built-ins that work offline and MCP servers, with permission."""
