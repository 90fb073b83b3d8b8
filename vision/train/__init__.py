"""Training of the reader's models (torch, the optional ``train`` extra); never imported at run time."""
