"""Models: embedders, the optional model slots (GLiNER entities, SaT splitting, a reranker)
and the one loader they share."""
