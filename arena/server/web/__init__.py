"""What every page shares (the domains' ``views`` and ``api`` hold the routes; ``arena.server.app`` lists
them).

``site`` the visitor, sessions, CSRF, templates and error pages (``Web``); ``forms`` a form's fields;
``plots`` charts drawn on the server; ``cache`` spectators' pages rendered once; ``budget`` the web's share
of the event loop and ``middleware`` that keeps to it, and the security headers; ``openapi`` the API's
description from its handlers' docstrings, ``api`` its route; ``templates/`` and ``static/``.
"""
