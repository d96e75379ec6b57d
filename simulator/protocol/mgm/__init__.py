"""The management server front (``ndbsim.protocol.mgm``): ndb_mgmd's plain-text protocol on
port 1186 (storage/ndb/src/mgmsrv/Services.cpp), answered from the model and its cluster log."""
