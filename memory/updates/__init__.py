"""Update detection: parse a fact into subject/attribute/value, and decide whether a new
fact supersedes an old one."""
