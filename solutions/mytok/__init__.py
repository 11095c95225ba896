"""The reference solutions of the workbook's package ``mytok``: every function of ``notebooks/mytok/``,
written out. A student who is stuck can read one; the tests fill a workspace with them and check that the
whole ladder, notebook 01 to 12, can be climbed."""
