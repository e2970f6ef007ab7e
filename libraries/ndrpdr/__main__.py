"""``python -m ndrpdr``: the command line."""

from ndrpdr.cli.main import main

raise SystemExit(main())
