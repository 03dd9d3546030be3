"""The write path: sentence analysis into facts, the near-duplicate guard, revision
(supersede/retract) and export/import. Redaction is ``hooks.redact``, shared with the hooks."""
