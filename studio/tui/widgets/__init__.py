"""The run screen's widgets: the stage, the side panes and the human's input box."""
