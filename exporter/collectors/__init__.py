"""Collectors: one module per ndbinfo area; see registry.py."""
