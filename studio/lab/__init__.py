"""The lab: the papers' experiments as plays of their own, run in batch, with statistics."""
