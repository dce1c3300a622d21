"""People: the organiser and entrants, their passwords (argon2), sessions, invitation and login links,
API tokens and descriptions.

``service`` the accounts (sign-up, login with its rate limit, links, tokens); ``views`` their pages (log in
and out, a link, sign-up, an entrant's own page ``/me``).
"""
