"""The statements ndbsim answers, one module per family; each registers the forms it answers
in the statement table (registry.statement), and registry.dispatch runs a statement by its
form. Importing the families here fills the table."""

from ndbsim.protocol.statements import (  # noqa: F401 (registers their forms)
    accounts,
    admin,
    explain,
    prepared,
    replica_control,
    replication,
    select,
    show_schema,
    show_server,
    variables,
)
from ndbsim.protocol.statements.registry import dispatch

__all__ = ["dispatch"]
