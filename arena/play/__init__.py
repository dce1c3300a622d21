"""``arena play``: a person plays a seat against bots in the browser, refereed by the arena's own table.

``board`` turns the seat's view and news into what the page is sent; ``seat`` is the person's seat (a
``Player`` with a deadline and an autopilot); ``session`` plays and stores the game; ``web`` serves the page.
"""
