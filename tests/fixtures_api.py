"""API client fixtures (owned by the api layer)."""
