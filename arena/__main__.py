"""``python -m arena`` is the ``arena`` command (``arena.start``: a bad config is refused first)."""

from arena.start import main

main()
