"""Studio pages (htmx, login required), one module per screen.

A page asked for by htmx renders only its `page` fragment (or the fragment the request targets),
so a version switch or an intent choice swaps part of the page instead of reloading it. Every
edit is a POST handled by `editor.studio_edit`: the form checks its fields, `catalog_app.editing`
checks and saves the changed spec, and the editor comes back with the previews told to refresh.
With `_validate=<field>` the same POST only checks, for validation as the analyst types.
"""
