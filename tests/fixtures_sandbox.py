"""Sandbox fixtures (owned by the sandbox layer)."""
