"""`python -m ndbsim`."""

from ndbsim.cli import main

raise SystemExit(main())
