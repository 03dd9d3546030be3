"""The read path: recall (seeds, fusion, walks, ranking) and the optional reranker."""
