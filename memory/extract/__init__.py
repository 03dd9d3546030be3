"""Text analysis with no storage and no model of its own: sentences, valid-time dates,
entities and fact kinds, by rules (an optional model backend plugs in through
``backends``)."""
