"""The write path: redaction, sentence analysis into facts, the near-duplicate guard,
revision (supersede/retract) and export/import."""
