"""The organiser's page and actions: entrants disabled or enabled, versions checked again, the ladder
paused, the exports.

``service`` the actions and what each changes on the ladder; ``views`` the page.
"""
