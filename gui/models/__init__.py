"""Qt-free models of what the windows show (the widgets draw them; napari keeps its layers'
data the same way)."""
