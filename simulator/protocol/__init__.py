"""The MySQL protocol front (``ndbsim.protocol``): the mysql-mimic server, statement execution,
system and status variables as the simulated mysqld reports them."""
