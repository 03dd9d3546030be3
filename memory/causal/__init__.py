"""Cause and effect: cue extraction and its lexicon, links between facts, and the walks
(``why``, ``trace``, ``chain``, ``what_if``)."""
