"""Models: embedders, optional model slots, and the one loader they share."""
