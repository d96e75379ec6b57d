"""The states of a transporter (enums.json "transporters.connection_status")."""

STATES = ("CONNECTED", "CONNECTING", "DISCONNECTED", "DISCONNECTING")
