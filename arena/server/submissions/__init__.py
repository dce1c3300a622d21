"""An entrant's versions: an upload unpacked safely, stored, checked in its sandbox, and made active.

``service`` the versions (``Submissions``, how a runtime is launched); ``unpack`` a single file or an
archive, with every limit; ``checks`` the bounded check queue (check-bot's machinery); ``views`` the upload
and a version's page; ``api`` the same for `arena submit` and `arena status`.
"""
