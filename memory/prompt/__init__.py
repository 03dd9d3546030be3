"""The hooks' server side: the inbox of captured exchanges, exchanges and their links,
standing rules, and the budgeted block injected before a prompt."""
