"""The model/cluster form: it edits the plan model, one field at a time."""
